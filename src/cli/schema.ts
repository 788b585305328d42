// `npm run schema`: writes migrations/schema.sql, the schema a fresh `npm run migrate` leaves, made on
// embedded PostgreSQL (PGlite, in memory) so that no server is needed. `--check` (in `npm run
// check`) writes nothing and fails when the committed file is stale, naming how to remake it.
import { readFile, writeFile } from 'node:fs/promises';
import { openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { schemaSnapshot } from '../platform/db/schema-snapshot.js';

const file = new URL('../../migrations/schema.sql', import.meta.url);

const database = await openDatabase({ databaseUrl: undefined, pgliteDir: 'memory://' });
let snapshot: string;
try {
  await migrateToLatest(database.db);
  snapshot = await schemaSnapshot(database.db);
} finally {
  await database.close();
}
if (process.argv.includes('--check')) {
  const committed = await readFile(file, 'utf8').catch(() => '');
  if (committed !== snapshot) {
    console.error('migrations/schema.sql is stale: run `npm run schema` and commit it.');
    process.exit(1);
  }
  console.log('migrations/schema.sql is up to date.');
} else {
  await writeFile(file, snapshot);
  console.log('Wrote migrations/schema.sql.');
}
