// The plans of the statements a database function runs (feed_page(), whose queries are planned once
// per connection inside the database): EXPLAIN of the call shows only a function scan, so the call
// runs once with auto_explain logging every nested statement's plan to this client. Postgres
// server only (auto_explain is one of its modules), as every benchmark.
import pg from 'pg';
import type { CompiledQuery } from 'kysely';

/** The plans (EXPLAIN ANALYZE, timing off) of the statements `call` ran inside functions. */
export async function nestedPlans(url: string, call: CompiledQuery): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`load 'auto_explain'`);
    for (const setting of [
      'auto_explain.log_min_duration = 0',
      'auto_explain.log_nested_statements = on',
      'auto_explain.log_analyze = on',
      'auto_explain.log_timing = off',
    ])
      await client.query(`set ${setting}`);
    const plans: string[] = [];
    const keep = (notice: { message?: string }) => plans.push(notice.message ?? '');
    client.on('notice', keep);
    await client.query('set client_min_messages = log');
    await client.query(call.sql, [...call.parameters]);
    await client.query('set client_min_messages = notice');
    client.off('notice', keep);
    // The last plan is the call's own (a function scan); the ones before are what it ran.
    return plans.slice(0, -1).map((plan) => plan.replace(/^duration: [\d.]+ ms\s+plan:\n/, ''));
  } finally {
    await client.end();
  }
}
