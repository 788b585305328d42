// rate_limit_hit() plans without sequential scans, so stale statistics on a churning table never
// make it scan the table.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const signature = sql`rate_limit_hit(text, timestamptz, integer, integer, boolean)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter function ${signature} set enable_seqscan = off`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter function ${signature} reset enable_seqscan`.execute(db);
}
