// `npm run migrate`: brings the configured database (DATABASE_URL, or PGlite in PGLITE_DIR) to the
// latest migration. The server also does this at start.
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { exitOnStartupError } from '../startup-error.js';

async function main() {
  const database = await openDatabase(loadConfig());
  try {
    const applied = await migrateToLatest(database.db);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
  } finally {
    await database.close();
  }
}

await main().catch(exitOnStartupError);
