-- Limits admitted all or none: a bot's write counts against its address's cap, its own limit and, for a reply, its conversation.
CREATE OR REPLACE FUNCTION public.rate_limit_hit_all(p_keys text[], p_maxes integer[], p_now timestamp with time zone, p_window_ms integer)
 RETURNS TABLE(currents integer[], ttls_ms bigint[])
 LANGUAGE plpgsql
 ROWS 1
 SET enable_seqscan TO 'off'
AS $function$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_n integer := cardinality(p_keys);
      v_now timestamptz[] := array_fill(null::timestamptz, array[v_n]);
      v_oldest timestamptz[] := array_fill(null::timestamptz, array[v_n]);
      v_hits integer[] := array_fill(0, array[v_n]);
      v_gone integer[] := array_fill(0, array[v_n]);
      v_ttl bigint[] := array_fill(0::bigint, array[v_n]);
      v_admits boolean := true;
      v_count integer;
      v_newest timestamptz;
      v_at timestamptz;
      v_min timestamptz;
      v_deleted integer;
    begin
      -- Locked in the order given (the address first), so two requests never wait on each other crosswise.
      for i in 1..v_n loop
        select w.hits, w.newest into v_count, v_newest from rate_limit_windows w where w.key = p_keys[i] for update;
        v_min := null;
        if found then
          select h.at into v_min from rate_limit_hits h where h.key = p_keys[i] order by h.at limit 1;
        else
          -- A window this statement creates has no hits (pruning deletes a window with its hits):
          -- a new key, as most conversations are, costs one insert. One inserted meanwhile is read.
          insert into rate_limit_windows (key) values (p_keys[i]) on conflict (key) do nothing
            returning hits, newest into v_count, v_newest;
          if not found then
            select w.hits, w.newest into v_count, v_newest from rate_limit_windows w where w.key = p_keys[i] for update;
            select h.at into v_min from rate_limit_hits h where h.key = p_keys[i] order by h.at limit 1;
          end if;
        end if;
        v_at := greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), v_newest);
        if v_min <= v_at - v_window then
          delete from rate_limit_hits h where h.key = p_keys[i] and h.at <= v_at - v_window;
          get diagnostics v_deleted = row_count;
          v_gone[i] := v_deleted;
          v_count := v_count - v_deleted;
          select h.at into v_min from rate_limit_hits h where h.key = p_keys[i] order by h.at limit 1;
        end if;
        v_now[i] := v_at;
        v_oldest[i] := v_min;
        v_hits[i] := v_count;
        v_admits := v_admits and v_count < p_maxes[i];
      end loop;
      for i in 1..v_n loop
        if v_admits then
          insert into rate_limit_hits (key, at) values (p_keys[i], v_now[i]);
          update rate_limit_windows w set hits = v_hits[i] + 1, newest = v_now[i] where w.key = p_keys[i];
          v_oldest[i] := coalesce(v_oldest[i], v_now[i]);
        elsif v_gone[i] > 0 then
          update rate_limit_windows w set hits = v_hits[i] where w.key = p_keys[i];
        end if;
        -- The time until the key's oldest counted hit leaves the window.
        v_ttl[i] := case when v_oldest[i] is null then 0
                         else ceil(extract(epoch from (v_oldest[i] + v_window - v_now[i])) * 1000) end;
        v_hits[i] := v_hits[i] + 1;
      end loop;
      return query select v_hits, v_ttl;
    end $function$;
