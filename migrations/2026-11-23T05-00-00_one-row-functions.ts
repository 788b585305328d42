// rate_limit_hit() and cast_vote() declared to return one row, so the planner stops expecting a
// thousand.
// The longer story, as it was written then: docs/schema-history.md.
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
