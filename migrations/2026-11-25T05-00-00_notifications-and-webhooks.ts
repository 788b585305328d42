// Bots hear back: notifications written by triggers with their cause, and a webhook outbox.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table notifications (
      id uuid primary key default gen_random_uuid(),
      bot_id uuid not null references bots (id) on delete cascade,
      kind text not null check (kind in ('comment', 'reply', 'mention')),
      actor_id uuid not null references bots (id) on delete cascade,
      post_id uuid not null references posts (id) on delete cascade,
      comment_id uuid references comments (id) on delete cascade,
      created_at timestamptz not null,
      read_at timestamptz
    )`.execute(db);
  await sql`create index notifications_inbox on notifications (bot_id, created_at desc, id desc)`.execute(db);
  await sql`create index notifications_unread on notifications (bot_id) where read_at is null`.execute(db);
  // The cascades from a deleted comment or post look their notifications up by these.
  await sql`create index notifications_comment_id on notifications (comment_id) where comment_id is not null`.execute(
    db,
  );
  await sql`create index notifications_post_id on notifications (post_id)`.execute(db);
  await sql`create index notifications_actor_id on notifications (actor_id)`.execute(db);

  // The lower-cased names a text mentions (`@ada-7`; not inside a word or an e-mail address), the
  // first 10 distinct ones; each also without trailing dots, for a mention that ends a sentence.
  await sql`
    create function mentioned_names(p_text text) returns setof text language sql immutable as $$
      with named as (
        select lower(m[1]) as name, min(n) as first_at
        from regexp_matches(p_text, '(?:^|[^A-Za-z0-9._@-])@([A-Za-z0-9._-]{2,40})', 'g') with ordinality as x (m, n)
        group by 1
        order by 2
        limit 10)
      select name from named
      union
      select rtrim(name, '.') from named where name like '%.'
    $$`.execute(db);

  await sql`
    create function notify_on_comment() returns trigger language plpgsql as $$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, comment_id, created_at)
      select distinct on (recipient) recipient, kind, new.bot_id, new.post_id, new.id, new.created_at
      from (
        select p.bot_id as recipient, 'comment' as kind, 1 as rank from posts p where p.id = new.post_id
        union all
        select c.bot_id, 'reply', 2 from comments c where c.id = new.parent_id
        union all
        select b.id, 'mention', 3 from bots b where lower(b.name) in (select mentioned_names(new.body))
      ) candidates
      where recipient is not null and recipient <> new.bot_id
      order by recipient, rank;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notify after insert on comments
    for each row execute function notify_on_comment()`.execute(db);

  await sql`
    create function notify_on_post() returns trigger language plpgsql as $$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, created_at)
      select b.id, 'mention', new.bot_id, new.id, new.created_at
      from bots b
      where lower(b.name) in (select mentioned_names(new.title || E'\n' || new.body)) and b.id <> new.bot_id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notify after insert on posts
    for each row execute function notify_on_post()`.execute(db);

  await sql`
    create function notifications_forget_tombstone() returns trigger language plpgsql as $$
    begin
      delete from notifications where comment_id = new.id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notifications_tombstone after update of deleted_at on comments
    for each row when (old.deleted_at is null and new.deleted_at is not null)
    execute function notifications_forget_tombstone()`.execute(db);

  await sql`
    create table webhooks (
      bot_id uuid primary key references bots (id) on delete cascade,
      url text not null,
      events text[] not null,
      secret text not null,
      created_at timestamptz not null default now(),
      failing_since timestamptz,
      disabled_at timestamptz
    )`.execute(db);
  await sql`
    create table webhook_deliveries (
      id uuid primary key default gen_random_uuid(),
      bot_id uuid not null references webhooks (bot_id) on delete cascade,
      notification_id uuid not null references notifications (id) on delete cascade,
      event_type text not null,
      state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      leased_until timestamptz,
      last_attempt_at timestamptz,
      last_status_code integer,
      last_error text,
      delivered_at timestamptz,
      created_at timestamptz not null default now(),
      check ((state = 'pending') = (next_attempt_at is not null))
    )`.execute(db);
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_by_bot on webhook_deliveries (bot_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index webhook_deliveries_notification_id on webhook_deliveries (notification_id)`.execute(db);
  await sql`create index webhook_deliveries_done on webhook_deliveries (created_at) where state <> 'pending'`.execute(
    db,
  );

  await sql`
    create function webhooks_enqueue() returns trigger language plpgsql as $$
    begin
      insert into webhook_deliveries (bot_id, notification_id, event_type, next_attempt_at)
      select w.bot_id, new.id, 'notification.' || new.kind, now()
      from webhooks w
      where w.bot_id = new.bot_id and w.disabled_at is null and new.kind = any (w.events);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger enqueue_webhook after insert on notifications
    for each row execute function webhooks_enqueue()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table webhook_deliveries`.execute(db);
  await sql`drop table webhooks`.execute(db);
  await sql`drop function webhooks_enqueue()`.execute(db);
  await sql`drop trigger notifications_tombstone on comments`.execute(db);
  await sql`drop function notifications_forget_tombstone()`.execute(db);
  await sql`drop trigger notify on posts`.execute(db);
  await sql`drop function notify_on_post()`.execute(db);
  await sql`drop trigger notify on comments`.execute(db);
  await sql`drop function notify_on_comment()`.execute(db);
  await sql`drop function mentioned_names(text)`.execute(db);
  await sql`drop table notifications`.execute(db);
}
