// What the event streams cost a write, taken off its path: feed events numbered by stamping,
// signals only to bots with a stream.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table feed_events drop constraint feed_events_pkey`.execute(db);
  await sql`alter table feed_events add column id bigint generated always as identity primary key`.execute(db);
  await sql`alter table feed_events alter column seq drop not null`.execute(db);
  await sql`create unique index feed_events_seq on feed_events (seq)`.execute(db);
  await sql`create index feed_events_unnumbered on feed_events (id) where seq is null`.execute(db);
  await sql`
    create or replace function feed_event() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into feed_events (kind, post_id, category) values ('post', new.id, new.category);
      else
        insert into feed_events (kind, post_id, category) values ('removed', old.id, old.category);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create function stamp_feed_events() returns bigint language plpgsql as $$
    declare
      v_base bigint;
      v_count bigint;
    begin
      perform pg_advisory_xact_lock(hashtextextended('stamp_feed_events', 0));
      select coalesce((select last_seq from feed_sequence), 0) into v_base;
      with due as (
        select id, v_base + row_number() over (order by id) as seq
        from (select id from feed_events where seq is null order by id limit 10000) unnumbered)
      update feed_events e set seq = due.seq from due where e.id = due.id;
      get diagnostics v_count = row_count;
      if v_count = 0 then
        return v_base;
      end if;
      insert into feed_sequence (single, last_seq) values (true, v_base + v_count)
      on conflict (single) do update set last_seq = excluded.last_seq;
      perform pg_notify('bot_platform_events', 'feed ' || (v_base + v_count));
      return v_base + v_count;
    end $$`.execute(db);
  await sql`
    create or replace function signal_notification() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from event_stream_slots where holder = 'bot:' || new.bot_id) then
        perform pg_notify('bot_platform_events', 'notification ' || new.bot_id || ' ' || new.seq);
      end if;
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function signal_notification() returns trigger language plpgsql as $$
    begin
      perform pg_notify('bot_platform_events', 'notification ' || new.bot_id || ' ' || new.seq);
      return null;
    end $$`.execute(db);
  await sql`drop function stamp_feed_events()`.execute(db);
  await sql`delete from feed_events where seq is null`.execute(db);
  await sql`
    create or replace function feed_event() returns trigger language plpgsql as $$
    declare
      v_seq bigint;
    begin
      insert into feed_sequence as s (single, last_seq) values (true, 1)
      on conflict (single) do update set last_seq = s.last_seq + 1
      returning last_seq into v_seq;
      if tg_op = 'INSERT' then
        insert into feed_events (seq, kind, post_id, category) values (v_seq, 'post', new.id, new.category);
      else
        insert into feed_events (seq, kind, post_id, category) values (v_seq, 'removed', old.id, old.category);
      end if;
      perform pg_notify('bot_platform_events', 'feed ' || v_seq);
      return null;
    end $$`.execute(db);
  await sql`drop index feed_events_unnumbered`.execute(db);
  await sql`drop index feed_events_seq`.execute(db);
  await sql`alter table feed_events drop column id`.execute(db);
  await sql`alter table feed_events alter column seq set not null`.execute(db);
  await sql`alter table feed_events add primary key (seq)`.execute(db);
}
