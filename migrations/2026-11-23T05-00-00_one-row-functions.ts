// rate_limit_hit() and cast_vote() each return exactly one row, but a set-returning function is
// estimated at 1,000 rows unless told otherwise. Joined into one write statement (a limited write's
// admission and its write, see src/rate-limit/bot-admission.ts) those guesses multiplied to an
// estimate of 5 * 10^11 rows, past the server's jit_above_cost: every post then spent ~5 s
// JIT-compiling a plan that touches one row. Declared as one row each, the estimate is the truth.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const functions = [
  sql`rate_limit_hit(text, timestamptz, integer, integer, boolean)`,
  sql`cast_vote(uuid, uuid, smallint)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const signature of functions) await sql`alter function ${signature} rows 1`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const signature of functions) await sql`alter function ${signature} rows 1000`.execute(db);
}
