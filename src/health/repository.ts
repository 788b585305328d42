// The one query of the health operations: whether the database answers at all, and soon.
import { sql } from 'kysely';
import type { Db } from '../platform/db/schema.js';

/** A readiness probe is answered within this time: a database that does not answer by then is not ready. */
const pingDeadlineMs = 2_000;

export async function pingDatabase(db: Db): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sql`select 1`.execute(db),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the database did not answer within ${pingDeadlineMs} ms`)),
          pingDeadlineMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
