// The one query of the health operations: whether the database answers at all.
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
