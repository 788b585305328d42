// rate_limit_windows: a row per limited key's window, locked and kept by the statement that
// records a hit.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Updated in place by every counted request: room on the page for HOT updates (no index changes).
  await sql`
    create table rate_limit_windows (
      key text primary key,
      hits integer not null default 0 check (hits >= 0),
      newest timestamptz
    ) with (fillfactor = 70)`.execute(db);
  await sql`
    insert into rate_limit_windows (key, hits, newest)
    select key, count(*), max(at) from rate_limit_hits group by key`.execute(db);
  for (const trigger of ['counts_on_insert', 'counts_on_delete', 'counts_on_truncate'])
    await sql`drop trigger ${sql.raw(trigger)} on rate_limit_hits`.execute(db);
  await sql`drop function rate_limit_counts_on_insert, rate_limit_counts_on_delete, rate_limit_counts_on_truncate`.execute(
    db,
  );
  await sql`drop table rate_limit_counts`.execute(db);
  await sql`drop index rate_limit_hits_at`.execute(db);

  // One key. Counting (p_record): lock (or create) the key's row; its time never goes back before
  // its newest hit (whatever clock a request read before it waited for the lock); delete its
  // expired hits when the oldest says there are some; record the hit when under the maximum.
  // Reading (not p_record): no lock, nothing written; the count is the row's unless some hits have
  // expired, then counted in the window.
  await sql`
    create or replace function rate_limit_hit(p_key text, p_now timestamptz, p_window_ms integer, p_max integer, p_record boolean)
    returns table (current integer, ttl_ms bigint)
    language plpgsql rows 1 set enable_seqscan = off as $$
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
    end $$`.execute(db);

  // Two keys, both or neither (2026-11-25T01-00-00_rate-limit-both-or-neither): each key's row
  // locked and pruned as rate_limit_hit() does, in the order given; the request recorded under
  // both keys only when both admit it. One body with the per-key steps in a loop: nested function
  // calls per key cost more (bench/README.md).
  await sql`
    create or replace function rate_limit_hit_both(p_first_key text, p_first_max integer, p_second_key text,
      p_second_max integer, p_now timestamptz, p_window_ms integer)
    returns table (first_current integer, first_ttl_ms bigint, second_current integer, second_ttl_ms bigint)
    language plpgsql rows 1 set enable_seqscan = off as $$
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
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index rate_limit_hits_at on rate_limit_hits (at)`.execute(db);
  await sql`
    create table rate_limit_counts (
      key text primary key,
      hits integer not null check (hits >= 0)
    )`.execute(db);
  await sql`insert into rate_limit_counts (key, hits) select key, count(*) from rate_limit_hits group by key`.execute(
    db,
  );
  await sql`
    create function rate_limit_counts_on_insert() returns trigger language plpgsql as $$
    begin
      insert into rate_limit_counts as c (key, hits)
      select key, count(*) from added group by key order by key
      on conflict (key) do update set hits = c.hits + excluded.hits;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counts_on_insert after insert on rate_limit_hits referencing new table as added
    for each statement execute function rate_limit_counts_on_insert()`.execute(db);
  await sql`
    create function rate_limit_counts_on_delete() returns trigger language plpgsql as $$
    begin
      update rate_limit_counts c set hits = c.hits - gone.hits
      from (select key, count(*)::integer as hits from removed group by key) gone
      where c.key = gone.key;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counts_on_delete after delete on rate_limit_hits referencing old table as removed
    for each statement execute function rate_limit_counts_on_delete()`.execute(db);
  await sql`
    create function rate_limit_counts_on_truncate() returns trigger language plpgsql as $$
    begin
      delete from rate_limit_counts;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counts_on_truncate after truncate on rate_limit_hits
    for each statement execute function rate_limit_counts_on_truncate()`.execute(db);
  await sql`drop table rate_limit_windows`.execute(db);

  // The bodies of 2026-11-23T03-00-00_rate-limit-counts and 2026-11-25T01-00-00_rate-limit-both-or-neither.
  await sql`
    create or replace function rate_limit_hit(p_key text, p_now timestamptz, p_window_ms integer, p_max integer, p_record boolean)
    returns table (current integer, ttl_ms bigint)
    language plpgsql rows 1 set enable_seqscan = off as $$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_now timestamptz;
      v_count integer;
      v_oldest timestamptz;
    begin
      if p_record then
        perform pg_advisory_xact_lock(hashtextextended(p_key, 0));
      end if;
      select greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), max(at)), min(at)
        into v_now, v_oldest
        from rate_limit_hits where key = p_key;
      if not p_record then
        select count(*), min(at) into v_count, v_oldest
          from rate_limit_hits where key = p_key and at > v_now - v_window;
      else
        if v_oldest <= v_now - v_window then
          delete from rate_limit_hits where key = p_key and at <= v_now - v_window;
          select min(at) into v_oldest from rate_limit_hits where key = p_key;
        end if;
        v_count := coalesce((select hits from rate_limit_counts where key = p_key), 0);
        if v_count < p_max then
          insert into rate_limit_hits (key, at) values (p_key, v_now);
          v_oldest := coalesce(v_oldest, v_now);
        end if;
        v_count := v_count + 1;
      end if;
      return query select v_count,
        case when v_oldest is null then 0::bigint
             else ceil(extract(epoch from (v_oldest + v_window - v_now)) * 1000)::bigint end;
    end
    $$`.execute(db);
  await sql`
    create or replace function rate_limit_hit_both(p_first_key text, p_first_max integer, p_second_key text,
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
      for i in 1..2 loop
        v_ttl[i] := case when v_oldest[i] is null then 0
                         else ceil(extract(epoch from (v_oldest[i] + v_window - v_now[i])) * 1000) end;
      end loop;
      return query select v_hits[1] + 1, v_ttl[1], v_hits[2] + 1, v_ttl[2];
    end $$`.execute(db);
}
