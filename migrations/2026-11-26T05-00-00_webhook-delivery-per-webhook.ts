// One attempt in flight per webhook (src/webhooks/README.md, "Delivery"): workers took the oldest
// due deliveries of all webhooks together, so a receiver that hung held every worker's places for
// a whole attempt deadline and delayed every other bot's deliveries (issue 43). Workers now take
// only each webhook's next delivery (its pending one due first), and only while none of its
// deliveries is in flight. This index serves both steps: the webhooks with something pending, one
// probe each (a skip scan by bot_id), and each one's next delivery, the first entry under its
// bot_id. It replaces webhook_deliveries_due, whose only reader was the old lease; /metrics counts
// pending deliveries through this one as well.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index webhook_deliveries_next_per_webhook on webhook_deliveries (bot_id, next_attempt_at)
    where state = 'pending'`.execute(db);
  await sql`drop index webhook_deliveries_due`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`.execute(db);
  await sql`drop index webhook_deliveries_next_per_webhook`.execute(db);
}
