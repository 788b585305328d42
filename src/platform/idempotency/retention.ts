// How long an earlier answer to an Idempotency-Key is kept: at least 24 hours (a bot may retry
// that long), after which the periodic work deletes it and the key may be used afresh.
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';

export const idempotencyKeyLifetimeHours = 24;

/** Deletes the answers older than their lifetime at `now` (a test's clock; null: the database's). */
export async function pruneIdempotencyKeys(db: Db, now: Date | null): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(
      'created_at',
      '<=',
      sql<Date>`coalesce(${now}::timestamptz, now()) - make_interval(hours => ${idempotencyKeyLifetimeHours})`,
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
