// A limited bot write is counted against two limits: its client IP's cap and its bot's own limit.
// They were two rate_limit_hit() calls, the cap's first, and the cap recorded its hit before the
// bot's limit had answered: a bot refused by its own limit still used its address's cap, so one bot
// ignoring Retry-After locked every other bot behind the same address out for an hour, contrary to
// "a 429 is not counted". rate_limit_hit_both() counts one request against two keys together:
// under both keys' locks (the first's first, as before, so callers that name the client IP's cap
// first never wait for each other in a cycle), it prunes and reads both counts and records the
// request in both only when both admit it. Each answer's `current` counts this request as
// rate_limit_hit()'s does (over the maximum: this key refused it), and its `ttl_ms` is the time
// until its oldest counted hit leaves the window.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One key's window, under its caller's lock: expired hits deleted (when there are some), then its
  // count read from rate_limit_counts, as rate_limit_hit() does. `window_now` never goes back before
  // the key's newest hit, whatever clock a request read before it waited for the lock.
  await sql`
    create function rate_limit_window(p_key text, p_now timestamptz, p_window interval,
      out window_now timestamptz, out window_hits integer, out window_oldest timestamptz)
    language plpgsql set enable_seqscan = off as $$
    begin
      select greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), max(at)), min(at)
        into window_now, window_oldest
        from rate_limit_hits where key = p_key;
      if window_oldest <= window_now - p_window then
        delete from rate_limit_hits where key = p_key and at <= window_now - p_window;
        select min(at) into window_oldest from rate_limit_hits where key = p_key;
      end if;
      window_hits := coalesce((select c.hits from rate_limit_counts c where c.key = p_key), 0);
    end $$`.execute(db);
  await sql`
    create function rate_limit_ttl_ms(p_oldest timestamptz, p_window interval, p_now timestamptz)
    returns bigint language sql immutable as $$
      select case when p_oldest is null then 0::bigint
                  else ceil(extract(epoch from (p_oldest + p_window - p_now)) * 1000)::bigint end
    $$`.execute(db);
  await sql`
    create function rate_limit_hit_both(p_first_key text, p_first_max integer, p_second_key text,
      p_second_max integer, p_now timestamptz, p_window_ms integer)
    returns table (first_current integer, first_ttl_ms bigint, second_current integer, second_ttl_ms bigint)
    language plpgsql rows 1 as $$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_first_now timestamptz;
      v_first_hits integer;
      v_first_oldest timestamptz;
      v_second_now timestamptz;
      v_second_hits integer;
      v_second_oldest timestamptz;
    begin
      perform pg_advisory_xact_lock(hashtextextended(p_first_key, 0));
      perform pg_advisory_xact_lock(hashtextextended(p_second_key, 0));
      select window_now, window_hits, window_oldest into v_first_now, v_first_hits, v_first_oldest
        from rate_limit_window(p_first_key, p_now, v_window);
      select window_now, window_hits, window_oldest into v_second_now, v_second_hits, v_second_oldest
        from rate_limit_window(p_second_key, p_now, v_window);
      if v_first_hits < p_first_max and v_second_hits < p_second_max then
        insert into rate_limit_hits (key, at) values (p_first_key, v_first_now), (p_second_key, v_second_now);
        v_first_oldest := coalesce(v_first_oldest, v_first_now);
        v_second_oldest := coalesce(v_second_oldest, v_second_now);
      end if;
      return query select
        v_first_hits + 1, rate_limit_ttl_ms(v_first_oldest, v_window, v_first_now),
        v_second_hits + 1, rate_limit_ttl_ms(v_second_oldest, v_window, v_second_now);
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function rate_limit_hit_both(text, integer, text, integer, timestamptz, integer)`.execute(db);
  await sql`drop function rate_limit_ttl_ms(timestamptz, interval, timestamptz)`.execute(db);
  await sql`drop function rate_limit_window(text, timestamptz, interval)`.execute(db);
}
