// Fair delivery: a webhook that hangs is `slow`, and its deliveries share a lane of their own
// (issue 59).
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhooks add column slow boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhooks drop column slow`.execute(db);
}
