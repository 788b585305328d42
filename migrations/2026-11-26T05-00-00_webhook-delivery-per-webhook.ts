// One attempt in flight per webhook: deliveries leased per webhook, oldest first.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhooks add column leased_until timestamptz`.execute(db);
  await sql`
    create index webhook_deliveries_next_per_webhook on webhook_deliveries (bot_id, next_attempt_at, id)
    where state = 'pending'`.execute(db);
  await sql`drop index webhook_deliveries_due`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`.execute(db);
  await sql`drop index webhook_deliveries_next_per_webhook`.execute(db);
  await sql`alter table webhooks drop column leased_until`.execute(db);
}
