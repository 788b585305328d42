// Event streams: notifications and feed events numbered in commit order, slots per holder,
// signals by NOTIFY.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table notification_sequences (
      bot_id uuid primary key references bots (id) on delete cascade,
      last_seq bigint not null
    )`.execute(db);
  await sql`alter table notifications add column seq bigint`.execute(db);
  await sql`
    update notifications n set seq = numbered.seq
    from (select id, row_number() over (partition by bot_id order by created_at, id) as seq from notifications) numbered
    where numbered.id = n.id`.execute(db);
  await sql`
    insert into notification_sequences (bot_id, last_seq)
    select bot_id, max(seq) from notifications group by bot_id`.execute(db);
  await sql`alter table notifications alter column seq set not null`.execute(db);
  await sql`create unique index notifications_stream on notifications (bot_id, seq)`.execute(db);

  await sql`
    create function number_notification() returns trigger language plpgsql as $$
    begin
      if new.seq is null then
        insert into notification_sequences as s (bot_id, last_seq) values (new.bot_id, 1)
        on conflict (bot_id) do update set last_seq = s.last_seq + 1
        returning last_seq into new.seq;
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger number_notification before insert on notifications
    for each row execute function number_notification()`.execute(db);
  await sql`
    create function signal_notification() returns trigger language plpgsql as $$
    begin
      perform pg_notify('bot_platform_events', 'notification ' || new.bot_id || ' ' || new.seq);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger signal_notification after insert on notifications
    for each row execute function signal_notification()`.execute(db);

  // The removals migration's, now carrying the number a restored notification had.
  await sql`
    create or replace function restore_notifications(p_notifications jsonb) returns void language plpgsql as $$
    begin
      insert into notifications (id, bot_id, kind, actor_id, moderation_action_id, post_id, comment_id,
        created_at, read_at, seq)
      select n.id, n.bot_id, n.kind, n.actor_id, n.moderation_action_id, n.post_id, n.comment_id,
             n.created_at, n.read_at, n.seq
      from jsonb_populate_recordset(null::notifications, p_notifications) n
      where exists (select 1 from bots b where b.id = n.bot_id)
        and (n.actor_id is null or exists (select 1 from bots b where b.id = n.actor_id))
        and (n.post_id is null or exists (select 1 from posts p where p.id = n.post_id))
        and (n.comment_id is null or exists (select 1 from comments c where c.id = n.comment_id
                                             and c.deleted_at is null))
      on conflict do nothing;
    end $$`.execute(db);

  await sql`
    create table feed_sequence (
      single boolean primary key default true check (single),
      last_seq bigint not null
    )`.execute(db);
  await sql`
    create table feed_events (
      seq bigint primary key,
      kind text not null check (kind in ('post', 'removed')),
      post_id uuid not null,
      category text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index feed_events_created_at on feed_events (created_at)`.execute(db);
  await sql`
    create function feed_event() returns trigger language plpgsql as $$
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
  // Named to fire after the posts' other triggers: the feed's lock is taken last.
  await sql`
    create trigger zz_feed_event after insert or delete on posts
    for each row execute function feed_event()`.execute(db);

  await sql`
    create function signal_end_of_streams() returns trigger language plpgsql as $$
    begin
      perform pg_notify('bot_platform_events', 'end ' || coalesce(new.bot_id, old.bot_id));
      return null;
    end $$`.execute(db);
  await sql`
    create trigger end_streams_on_revoke after update of revoked_at on api_keys
    for each row when (old.revoked_at is null and new.revoked_at is not null)
    execute function signal_end_of_streams()`.execute(db);
  await sql`
    create trigger end_streams_on_delete after delete on api_keys
    for each row execute function signal_end_of_streams()`.execute(db);
  await sql`
    create function signal_end_of_bot_streams() returns trigger language plpgsql as $$
    begin
      perform pg_notify('bot_platform_events', 'end ' || coalesce(new.id, old.id));
      return null;
    end $$`.execute(db);
  await sql`
    create trigger end_streams_on_suspension after update of suspended_at on bots
    for each row when (new.suspended_at is not null and new.suspended_at is distinct from old.suspended_at)
    execute function signal_end_of_bot_streams()`.execute(db);
  await sql`
    create trigger end_streams_on_delete after delete on bots
    for each row execute function signal_end_of_bot_streams()`.execute(db);

  await sql`
    create table event_stream_slots (
      id uuid primary key,
      holder text not null,
      instance_id uuid not null,
      opened_at timestamptz not null default now(),
      alive_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index event_stream_slots_holder on event_stream_slots (holder, alive_at)`.execute(db);
  await sql`create index event_stream_slots_instance on event_stream_slots (instance_id)`.execute(db);
  // null when the slot is taken; otherwise the milliseconds until the holder's least recently
  // marked slot would lapse (if its instance died), for Retry-After.
  await sql`
    create function take_stream_slot(p_id uuid, p_holder text, p_instance uuid, p_max integer, p_lapse_ms integer)
    returns integer language plpgsql as $$
    declare
      v_open integer;
      v_oldest timestamptz;
    begin
      perform pg_advisory_xact_lock(hashtextextended('event_stream_slots ' || p_holder, 0));
      delete from event_stream_slots
      where holder = p_holder and alive_at < now() - make_interval(secs => p_lapse_ms / 1000.0);
      select count(*), min(alive_at) into v_open, v_oldest from event_stream_slots where holder = p_holder;
      if v_open >= p_max then
        return greatest(1, ceil(extract(epoch from
          v_oldest + make_interval(secs => p_lapse_ms / 1000.0) - now()) * 1000))::integer;
      end if;
      insert into event_stream_slots (id, holder, instance_id) values (p_id, p_holder, p_instance);
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function take_stream_slot(uuid, text, uuid, integer, integer)`.execute(db);
  await sql`drop table event_stream_slots`.execute(db);
  await sql`drop trigger end_streams_on_delete on bots`.execute(db);
  await sql`drop trigger end_streams_on_suspension on bots`.execute(db);
  await sql`drop function signal_end_of_bot_streams()`.execute(db);
  await sql`drop trigger end_streams_on_delete on api_keys`.execute(db);
  await sql`drop trigger end_streams_on_revoke on api_keys`.execute(db);
  await sql`drop function signal_end_of_streams()`.execute(db);
  await sql`drop trigger zz_feed_event on posts`.execute(db);
  await sql`drop function feed_event()`.execute(db);
  await sql`drop table feed_events`.execute(db);
  await sql`drop table feed_sequence`.execute(db);
  await sql`
    create or replace function restore_notifications(p_notifications jsonb) returns void language plpgsql as $$
    begin
      insert into notifications (id, bot_id, kind, actor_id, moderation_action_id, post_id, comment_id,
        created_at, read_at)
      select n.id, n.bot_id, n.kind, n.actor_id, n.moderation_action_id, n.post_id, n.comment_id,
             n.created_at, n.read_at
      from jsonb_populate_recordset(null::notifications, p_notifications) n
      where exists (select 1 from bots b where b.id = n.bot_id)
        and (n.actor_id is null or exists (select 1 from bots b where b.id = n.actor_id))
        and (n.post_id is null or exists (select 1 from posts p where p.id = n.post_id))
        and (n.comment_id is null or exists (select 1 from comments c where c.id = n.comment_id
                                             and c.deleted_at is null))
      on conflict (id) do nothing;
    end $$`.execute(db);
  await sql`drop trigger signal_notification on notifications`.execute(db);
  await sql`drop function signal_notification()`.execute(db);
  await sql`drop trigger number_notification on notifications`.execute(db);
  await sql`drop function number_notification()`.execute(db);
  await sql`drop index notifications_stream`.execute(db);
  await sql`alter table notifications drop column seq`.execute(db);
  await sql`drop table notification_sequences`.execute(db);
}
