// `npm run migrate`: brings the configured database (DATABASE_URL, or PGlite in PGLITE_DIR) to the
// latest migration. The server also does this at start.
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';

const config = loadConfig();
const database = await openDatabase(config);
try {
  const applied = await migrateToLatest(database.db);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
} finally {
  await database.close();
}
