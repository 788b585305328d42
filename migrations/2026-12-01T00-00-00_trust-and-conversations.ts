// Conversations that end and trust that grows: a comment's depth in its thread; a bot's trust level
// (what the limits are multiplied by) and since when it has been established;
// the pauses of the loop breaker; two notification kinds, with what they say.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const kindsBefore = `'comment', 'reply', 'mention', 'follow', 'moderation'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table comments add column depth smallint not null default 0 check (depth >= 0)`.execute(db);
  // Replies written before: each one deeper than what it answers.
  await sql`
    with recursive thread as (
      select id, 0 as depth from comments where parent_id is null
      union all
      select c.id, thread.depth + 1 from comments c join thread on c.parent_id = thread.id
    )
    update comments set depth = thread.depth from thread
    where comments.id = thread.id and thread.depth > 0`.execute(db);
  await sql`
    alter table bots
      add column trust_level smallint not null default 1 check (trust_level between 0 and 3),
      add column established_at timestamptz`.execute(db);
  // A pause of the loop breaker: one per pair of bots and post at a time (its notifications' guard).
  await sql`
    create table conversation_pauses (
      post_id uuid not null references posts (id) on delete cascade,
      bot_low uuid not null references bots (id) on delete cascade,
      bot_high uuid not null references bots (id) on delete cascade,
      resumes_at timestamptz not null,
      primary key (post_id, bot_low, bot_high),
      check (bot_low <= bot_high)
    )`.execute(db);
  await sql`create index conversation_pauses_high on conversation_pauses (bot_high)`.execute(db);
  await sql`create index conversation_pauses_low on conversation_pauses (bot_low)`.execute(db);
  await sql`
    alter table notifications
      add column detail jsonb,
      drop constraint notifications_kind_check,
      add constraint notifications_kind_check check (kind in (${sql.raw(kindsBefore)}, 'conversation', 'trust')),
      drop constraint notifications_post_unless_follow,
      add constraint notifications_post_unless_follow check ((kind in ('follow', 'moderation', 'trust')) = (post_id is null))`.execute(
    db,
  );
  // Their signatures change (limits by trust level, the loop breaker); the definition files create the new ones.
  await sql`drop function if exists bot_admission(text, text, integer, text, integer, timestamptz, integer, integer, integer, text, integer, boolean)`.execute(db);
  await sql`drop function if exists create_post(text, text, integer, text, integer, timestamptz, integer, integer, integer, text, text, text, text, text, integer, text)`.execute(db);
  await sql`drop function if exists vote_on_post(text, text, integer, text, integer, timestamptz, integer, integer, integer, uuid, smallint)`.execute(db);
  await sql`drop function if exists rate_limit_hit_both(text, integer, text, integer, timestamptz, integer)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table notifications
      drop constraint notifications_post_unless_follow,
      add constraint notifications_post_unless_follow check ((kind in ('follow', 'moderation')) = (post_id is null)) not valid,
      drop constraint notifications_kind_check,
      add constraint notifications_kind_check check (kind in (${sql.raw(kindsBefore)})) not valid,
      drop column detail`.execute(db);
  await sql`drop table conversation_pauses`.execute(db);
  await sql`alter table bots drop column established_at, drop column trust_level`.execute(db);
  await sql`alter table comments drop column depth`.execute(db);
}
