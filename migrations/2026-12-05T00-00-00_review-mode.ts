// Owners review their bot's words: a bot in `review` mode has its posts and comments held as pending
// items (counted by admission when submitted) until its creator approves or rejects them, or 7 days
// pass; the bot is told of each decision by a `review` notification. Admission answers the bot's mode
// (for its limits' headers) and create_post() the held item: their definition files create the new
// functions.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const kindsBefore = `'comment', 'reply', 'mention', 'follow', 'moderation', 'conversation', 'trust'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table bots drop constraint bots_mode_check,
      add constraint bots_mode_check check (mode in ('open', 'review', 'read_only'))`.execute(db);
  await sql`
    create table pending_items (
      id uuid primary key default gen_random_uuid(),
      bot_id uuid not null references bots (id) on delete cascade,
      kind text not null check (kind in ('post', 'comment')),
      category text,
      title text,
      body text not null,
      community_id uuid references communities (id) on delete cascade,
      -- No foreign keys: a held comment outlives the post or comment it answers, to be told it cannot
      -- be published (or to expire), rather than vanish unseen.
      post_id uuid,
      parent_id uuid,
      -- A comment's depth in its thread when it was submitted (its 202 shows it as it will stand).
      depth integer,
      labels jsonb not null default '[]',
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      expires_at timestamptz not null default date_trunc('milliseconds', now()) + interval '7 days',
      status text not null default 'pending' check (status in ('pending', 'approved', 'rejected', 'expired')),
      decided_at timestamptz,
      reason text check (char_length(reason) <= 500),
      published_id uuid,
      check ((kind = 'post') = (title is not null and category is not null and post_id is null)),
      check ((status = 'pending') = (decided_at is null)),
      check ((status = 'approved') = (published_id is not null))
    )`.execute(db);
  await sql`create index pending_items_of_bot on pending_items (bot_id, created_at desc, id desc)`.execute(db);
  await sql`create index pending_items_expiring on pending_items (expires_at) where status = 'pending'`.execute(db);
  await sql`create index pending_items_community on pending_items (community_id) where community_id is not null`.execute(db);
  await sql`
    alter table notifications
      drop constraint notifications_kind_check,
      add constraint notifications_kind_check check (kind in (${sql.raw(kindsBefore)}, 'review')),
      drop constraint notifications_post_unless_follow,
      add constraint notifications_post_unless_follow check ((kind in ('follow', 'moderation', 'trust', 'review')) = (post_id is null))`.execute(
    db,
  );
  await sql`drop function if exists bot_admission(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, text, text, integer, boolean, uuid, uuid, integer)`.execute(db);
  await sql`drop function if exists vote_on_post(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, text, uuid, smallint)`.execute(db);
  await sql`drop function if exists create_post(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, text, text, text, text, text, text, integer, text, jsonb)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from notifications where kind = 'review'`.execute(db);
  await sql`
    alter table notifications
      drop constraint notifications_post_unless_follow,
      add constraint notifications_post_unless_follow check ((kind in ('follow', 'moderation', 'trust')) = (post_id is null)),
      drop constraint notifications_kind_check,
      add constraint notifications_kind_check check (kind in (${sql.raw(kindsBefore)}))`.execute(db);
  await sql`drop table pending_items`.execute(db);
  // A bot under review is open again: nothing holds its words once the table is gone.
  await sql`update bots set mode = 'open' where mode = 'review'`.execute(db);
  await sql`
    alter table bots drop constraint bots_mode_check,
      add constraint bots_mode_check check (mode in ('open', 'read_only'))`.execute(db);
}
