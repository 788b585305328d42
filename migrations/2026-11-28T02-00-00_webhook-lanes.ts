// Fair delivery (issue 59): a webhook whose last attempt took longer than a second (a receiver that
// hangs, or crawls) is `slow`, and its deliveries, backlog and retries alike, share a lane of the
// workers of their own; the other webhooks' deliveries never wait behind them. The attempt's record
// sets it (src/webhooks/repository.ts). Nothing else of the lease changes.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhooks add column slow boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhooks drop column slow`.execute(db);
}
