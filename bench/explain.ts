// The plan a query of our own runs by, as EXPLAIN ANALYZE prints it (no costs or timings, so two
// runs print the same plan): benchmarks check and show that a query reads an index, not a table.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../src/platform/db/schema.js';

export async function explain(db: Kysely<Database>, compiled: CompiledQuery): Promise<string> {
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>({
    ...compiled,
    sql: `explain (analyze, costs off, timing off, summary off) ${compiled.sql}`,
  });
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}
