// `npm run migrate`: brings the configured database (DATABASE_URL, or PGlite in PGLITE_DIR) to the
// latest migration, as the schema's owner (DATABASE_MIGRATION_URL, else DATABASE_DIRECT_URL, never
// through a transaction pooler). The server also does this at start, when its role may.
import { loadConfig } from '../config.js';
import { checkDatabases, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { exitOnStartupError } from '../config/startup-error.js';

async function main() {
  const config = loadConfig(process.env, { serving: false });
  const database = await openDatabase(config);
  try {
    await checkDatabases(database, config);
    const applied = await database.withMigrationConnection(migrateToLatest);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
  } finally {
    await database.close();
  }
}

await main().catch(exitOnStartupError);
