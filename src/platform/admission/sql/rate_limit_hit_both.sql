-- Two limits (the bot's and its address's) admitted both or neither.
CREATE OR REPLACE FUNCTION public.rate_limit_hit_both(p_first_key text, p_first_max integer, p_second_key text, p_second_max integer, p_now timestamp with time zone, p_window_ms integer)
 RETURNS TABLE(first_current integer, first_ttl_ms bigint, second_current integer, second_ttl_ms bigint)
 LANGUAGE plpgsql
 ROWS 1
 SET enable_seqscan TO 'off'
AS $function$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_keys text[] := array[p_first_key, p_second_key];
      v_now timestamptz[] := array[null, null]::timestamptz[];
      v_oldest timestamptz[] := array[null, null]::timestamptz[];
      v_hits integer[] := array[0, 0];
      v_gone integer[] := array[0, 0];
      v_ttl bigint[] := array[0, 0];
      v_count integer;
      v_newest timestamptz;
      v_at timestamptz;
      v_min timestamptz;
      v_deleted integer;
    begin
      for i in 1..2 loop
        select w.hits, w.newest into v_count, v_newest from rate_limit_windows w where w.key = v_keys[i] for update;
        if not found then
          insert into rate_limit_windows (key) values (v_keys[i]) on conflict (key) do nothing;
          select w.hits, w.newest into v_count, v_newest from rate_limit_windows w where w.key = v_keys[i] for update;
        end if;
        v_at := greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), v_newest);
        select h.at into v_min from rate_limit_hits h where h.key = v_keys[i] order by h.at limit 1;
        if v_min <= v_at - v_window then
          delete from rate_limit_hits h where h.key = v_keys[i] and h.at <= v_at - v_window;
          get diagnostics v_deleted = row_count;
          v_gone[i] := v_deleted;
          v_count := v_count - v_deleted;
          select h.at into v_min from rate_limit_hits h where h.key = v_keys[i] order by h.at limit 1;
        end if;
        v_now[i] := v_at;
        v_oldest[i] := v_min;
        v_hits[i] := v_count;
      end loop;
      if v_hits[1] < p_first_max and v_hits[2] < p_second_max then
        insert into rate_limit_hits (key, at) values (p_first_key, v_now[1]), (p_second_key, v_now[2]);
        update rate_limit_windows w set hits = v_hits[1] + 1, newest = v_now[1] where w.key = p_first_key;
        update rate_limit_windows w set hits = v_hits[2] + 1, newest = v_now[2] where w.key = p_second_key;
        v_oldest[1] := coalesce(v_oldest[1], v_now[1]);
        v_oldest[2] := coalesce(v_oldest[2], v_now[2]);
      else
        for i in 1..2 loop
          if v_gone[i] > 0 then
            update rate_limit_windows w set hits = v_hits[i] where w.key = v_keys[i];
          end if;
        end loop;
      end if;
      -- The time until each key's oldest counted hit leaves the window.
      for i in 1..2 loop
        v_ttl[i] := case when v_oldest[i] is null then 0
                         else ceil(extract(epoch from (v_oldest[i] + v_window - v_now[i])) * 1000) end;
      end loop;
      return query select v_hits[1] + 1, v_ttl[1], v_hits[2] + 1, v_ttl[2];
    end $function$;
