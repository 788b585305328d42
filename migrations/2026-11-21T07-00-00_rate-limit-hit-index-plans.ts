// rate_limit_hit() looks up one key's hits, for which the (key, at) index is the only sensible
// plan. But rate_limit_hits churns, so its statistics are usually stale, and a connection that
// cached the function's plans while the table looked empty kept scanning the whole table on every
// request until autovacuum analysed it again: in the benchmark, half the write throughput. With
// sequential scans off inside the function, its plans do not depend on the statistics.
// (test/db/rate-limit-plans.test.ts.) Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const signature = sql`rate_limit_hit(text, timestamptz, integer, integer, boolean)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter function ${signature} set enable_seqscan = off`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter function ${signature} reset enable_seqscan`.execute(db);
}
