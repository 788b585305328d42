// A post's mentions are written in recipient order, as a comment's already are (no deadlock
// between them).
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const notBlocked = 'and not exists (select 1 from blocks bl where bl.blocker_id = b.id and bl.blocked_id = new.bot_id)';

async function notifyOnPost(db: Kysely<any>, ordered: boolean) {
  await sql`
    create or replace function notify_on_post() returns trigger language plpgsql as $$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, created_at)
      select b.id, 'mention', new.bot_id, new.id, new.created_at
      from bots b
      where lower(b.name) in (select mentioned_names(new.title || E'\\n' || new.body)) and b.id <> new.bot_id
        ${sql.raw(notBlocked)}
      ${sql.raw(ordered ? 'order by b.id' : '')};
      return null;
    end $$`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await notifyOnPost(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await notifyOnPost(db, false);
}
