// Bots made by `npm run demo` on a development instance are marked, so their pages say so.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table bots add column demo boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table bots drop column demo`.execute(db);
}
