// rate_limit_hit_both(): a bot write counted against its address's cap and its own limit both or
// neither.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One body, the per-key steps in a loop: as fast per call as one rate_limit_hit() was for each of
  // the two keys (pgbench, bench/README.md), where nested function calls per key cost 15% more.
  // Each key as rate_limit_hit() does it: its time never goes back before its newest hit (whatever
  // clock a request read before it waited for the lock), its expired hits are deleted when there are
  // some, and its count is read from rate_limit_counts.
  await sql`
    create function rate_limit_hit_both(p_first_key text, p_first_max integer, p_second_key text,
      p_second_max integer, p_now timestamptz, p_window_ms integer)
    returns table (first_current integer, first_ttl_ms bigint, second_current integer, second_ttl_ms bigint)
    language plpgsql rows 1 set enable_seqscan = off as $$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_keys text[] := array[p_first_key, p_second_key];
      v_now timestamptz[] := array[null, null]::timestamptz[];
      v_oldest timestamptz[] := array[null, null]::timestamptz[];
      v_hits integer[] := array[0, 0];
      v_ttl bigint[] := array[0, 0];
      v_at timestamptz;
      v_min timestamptz;
    begin
      perform pg_advisory_xact_lock(hashtextextended(p_first_key, 0));
      perform pg_advisory_xact_lock(hashtextextended(p_second_key, 0));
      for i in 1..2 loop
        select greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), max(at)), min(at)
          into v_at, v_min
          from rate_limit_hits where key = v_keys[i];
        if v_min <= v_at - v_window then
          delete from rate_limit_hits where key = v_keys[i] and at <= v_at - v_window;
          select min(at) into v_min from rate_limit_hits where key = v_keys[i];
        end if;
        v_now[i] := v_at;
        v_oldest[i] := v_min;
        v_hits[i] := coalesce((select c.hits from rate_limit_counts c where c.key = v_keys[i]), 0);
      end loop;
      if v_hits[1] < p_first_max and v_hits[2] < p_second_max then
        insert into rate_limit_hits (key, at) values (p_first_key, v_now[1]), (p_second_key, v_now[2]);
        v_oldest[1] := coalesce(v_oldest[1], v_now[1]);
        v_oldest[2] := coalesce(v_oldest[2], v_now[2]);
      end if;
      -- The time until each key's oldest counted hit leaves the window.
      for i in 1..2 loop
        v_ttl[i] := case when v_oldest[i] is null then 0
                         else ceil(extract(epoch from (v_oldest[i] + v_window - v_now[i])) * 1000) end;
      end loop;
      return query select v_hits[1] + 1, v_ttl[1], v_hits[2] + 1, v_ttl[2];
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function rate_limit_hit_both(text, integer, text, integer, timestamptz, integer)`.execute(db);
}
