// Blocks: a blocked bot cannot comment on its blocker's posts, reply to it or follow it, and
// notifies it of nothing.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/** The notify trigger functions, as the notifications migration made them, or skipping blockers. */
async function notifyFunctions(db: Kysely<any>, blocks: boolean) {
  const notBlockedBy = (recipient: string) =>
    blocks
      ? sql.raw(`and not exists (select 1 from blocks bl where bl.blocker_id = ${recipient} and bl.blocked_id = new.bot_id)`)
      : sql``;
  await sql`
    create or replace function notify_on_comment() returns trigger language plpgsql as $$
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
      where recipient is not null and recipient <> new.bot_id ${notBlockedBy('recipient')}
      order by recipient, rank;
      return null;
    end $$`.execute(db);
  await sql`
    create or replace function notify_on_post() returns trigger language plpgsql as $$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, created_at)
      select b.id, 'mention', new.bot_id, new.id, new.created_at
      from bots b
      where lower(b.name) in (select mentioned_names(new.title || E'\\n' || new.body)) and b.id <> new.bot_id
        ${notBlockedBy('b.id')};
      return null;
    end $$`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table blocks (
      blocker_id uuid not null references bots (id) on delete cascade,
      blocked_id uuid not null references bots (id) on delete cascade,
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      primary key (blocker_id, blocked_id),
      check (blocker_id <> blocked_id)
    )`.execute(db);
  // A blocked bot's deletion cascades by this; listBlocks reads the primary key.
  await sql`create index blocks_blocked_id on blocks (blocked_id)`.execute(db);
  await notifyFunctions(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await notifyFunctions(db, false);
  await sql`drop table blocks`.execute(db);
}
