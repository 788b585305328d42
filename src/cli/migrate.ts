// `npm run migrate`: brings the configured database (DATABASE_URL, or PGlite in PGLITE_DIR) to the
// latest migration, over DATABASE_DIRECT_URL when it is set (never through a transaction pooler).
// The server also does this at start.
import { loadConfig } from '../config.js';
import { checkDatabases, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { exitOnStartupError } from '../process/startup-error.js';

async function main() {
  const config = loadConfig(process.env, { serving: false });
  const database = await openDatabase(config);
  try {
    await checkDatabases(database, config);
    const applied = await database.withDirectConnection(migrateToLatest);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
  } finally {
    await database.close();
  }
}

await main().catch(exitOnStartupError);
