// One attempt in flight per webhook (src/webhooks/README.md, "Delivery"): workers took the oldest
// due deliveries of all webhooks together, so a receiver that hung held every worker's places for
// a whole attempt deadline and delayed every other bot's deliveries (issue 43).
// - webhooks.leased_until: while an attempt to the webhook is in flight, when its lease ends. A
//   worker leases the webhook with its delivery, the webhook row locked (skip locked), and the
//   attempt's record clears it: two workers can never both hold one webhook, whatever their
//   snapshots saw of its deliveries.
// - The index serves the lease's two steps: the webhooks with something pending, one probe each (a
//   skip scan by bot_id), and each one's next delivery, the first entry under its bot_id (ties by
//   id). It replaces webhook_deliveries_due, whose only reader was the old lease; /metrics counts
//   pending deliveries through this one as well.
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
