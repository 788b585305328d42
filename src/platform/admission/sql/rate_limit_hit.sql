-- One rolling-window limit: counts the hits in the window, records one if under the limit; the exact sliding log.
CREATE OR REPLACE FUNCTION public.rate_limit_hit(p_key text, p_now timestamp with time zone, p_window_ms integer, p_max integer, p_record boolean)
 RETURNS TABLE(current integer, ttl_ms bigint)
 LANGUAGE plpgsql
 ROWS 1
 SET enable_seqscan TO 'off'
AS $function$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_hits integer;
      v_newest timestamptz;
      v_now timestamptz;
      v_oldest timestamptz;
      v_gone integer := 0;
    begin
      if p_record then
        select w.hits, w.newest into v_hits, v_newest from rate_limit_windows w where w.key = p_key for update;
        if not found then
          insert into rate_limit_windows (key) values (p_key) on conflict (key) do nothing;
          select w.hits, w.newest into v_hits, v_newest from rate_limit_windows w where w.key = p_key for update;
        end if;
      else
        select w.hits, w.newest into v_hits, v_newest from rate_limit_windows w where w.key = p_key;
        v_hits := coalesce(v_hits, 0);
      end if;
      v_now := greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), v_newest);
      select h.at into v_oldest from rate_limit_hits h where h.key = p_key order by h.at limit 1;
      if v_oldest <= v_now - v_window then
        if p_record then
          delete from rate_limit_hits h where h.key = p_key and h.at <= v_now - v_window;
          get diagnostics v_gone = row_count;
          v_hits := v_hits - v_gone;
          select h.at into v_oldest from rate_limit_hits h where h.key = p_key order by h.at limit 1;
        else
          select count(*), min(h.at) into v_hits, v_oldest
            from rate_limit_hits h where h.key = p_key and h.at > v_now - v_window;
        end if;
      end if;
      if p_record then
        if v_hits < p_max then
          insert into rate_limit_hits (key, at) values (p_key, v_now);
          update rate_limit_windows w set hits = v_hits + 1, newest = v_now where w.key = p_key;
          v_oldest := coalesce(v_oldest, v_now);
        elsif v_gone > 0 then
          update rate_limit_windows w set hits = v_hits where w.key = p_key;
        end if;
        v_hits := v_hits + 1;
      end if;
      return query select v_hits,
        case when v_oldest is null then 0::bigint
             else ceil(extract(epoch from (v_oldest + v_window - v_now)) * 1000)::bigint end;
    end $function$;
