// Safe to read: a community's title, description and rules are labelled as posts are (`labels`, set
// by the text checks before the write), so that a community's rules cannot give agents orders unseen.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table communities add column labels jsonb not null default '[]'
    check (jsonb_typeof(labels) = 'array')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table communities drop column labels`.execute(db);
}
