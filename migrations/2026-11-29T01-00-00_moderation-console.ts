// The moderation console lists the bots suspended now and what was removed, newest first.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index bots_suspended on bots (suspended_at desc, id) where suspended_at is not null`.execute(db);
  await sql`create index removed_content_newest on removed_content (removed_at desc, target_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index removed_content_newest`.execute(db);
  await sql`drop index bots_suspended`.execute(db);
}
