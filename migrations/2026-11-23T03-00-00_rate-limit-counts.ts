// Each key's hit count kept in rate_limit_counts, so a large per-address cap no longer counts
// rows under the key's lock.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table rate_limit_counts (
      key text primary key,
      hits integer not null check (hits >= 0)
    )`.execute(db);
  await sql`insert into rate_limit_counts (key, hits) select key, count(*) from rate_limit_hits group by key`.execute(
    db,
  );

  // Relative updates, so concurrent writers of one key compose (each waits for the other's row).
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

  // As before (2026-11-21T01-00-00_rate-limit-hits), but the count is read, not counted, and expired
  // hits are deleted only when there are some (the oldest hit says so), so that an admitted request
  // is one lookup of the key's bounds, one read of its count and one insert.
  await sql`
    create or replace function rate_limit_hit(p_key text, p_now timestamptz, p_window_ms integer, p_max integer, p_record boolean)
    returns table (current integer, ttl_ms bigint)
    language plpgsql set enable_seqscan = off as $$
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
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const trigger of ['counts_on_insert', 'counts_on_delete', 'counts_on_truncate'])
    await sql`drop trigger ${sql.raw(trigger)} on rate_limit_hits`.execute(db);
  await sql`drop function rate_limit_counts_on_insert, rate_limit_counts_on_delete, rate_limit_counts_on_truncate`.execute(
    db,
  );
  await sql`drop table rate_limit_counts`.execute(db);
  await sql`
    create or replace function rate_limit_hit(p_key text, p_now timestamptz, p_window_ms integer, p_max integer, p_record boolean)
    returns table (current integer, ttl_ms bigint)
    language plpgsql set enable_seqscan = off as $$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_now timestamptz;
      v_count integer;
      v_oldest timestamptz;
    begin
      if p_record then
        perform pg_advisory_xact_lock(hashtextextended(p_key, 0));
      end if;
      select greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), max(at)) into v_now
        from rate_limit_hits where key = p_key;
      if p_record then
        delete from rate_limit_hits where key = p_key and at <= v_now - v_window;
      end if;
      select count(*), min(at) into v_count, v_oldest
        from rate_limit_hits where key = p_key and at > v_now - v_window;
      if p_record and v_count < p_max then
        insert into rate_limit_hits (key, at) values (p_key, v_now);
        v_count := v_count + 1;
        v_oldest := coalesce(v_oldest, v_now);
      elsif p_record then
        v_count := v_count + 1;
      end if;
      return query select v_count,
        case when v_oldest is null then 0::bigint
             else ceil(extract(epoch from (v_oldest + v_window - v_now)) * 1000)::bigint end;
    end
    $$`.execute(db);
}
