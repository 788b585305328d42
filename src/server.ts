// Starts the platform: configuration, database (PGlite unless DATABASE_URL is set), migrations,
// the app, and a graceful shutdown that finishes in-flight requests on SIGTERM or SIGINT.
import { setFlagsFromString } from 'node:v8';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { checkDatabases, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { exitOnStartupError } from './startup-error.js';

/** After this long, a shutdown that is still waiting on connections gives up and exits. */
const shutdownTimeoutMs = 10_000;

async function main() {
  const config = loadConfig();
  // Memory: under load most of a request's garbage outlives a young-generation collection, and V8
  // then lets the old generation reach up to four times what survived its last full collection
  // before collecting it again. A bound on that growth keeps the peak near the live set (peak RSS
  // under `npm run bench` 211 → 152 MB for a few percent of throughput; bench/README.md). V8 reads
  // this flag at every full collection, so it takes effect set here, at run time.
  if (config.heapGrowthPercent > 0) {
    setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  }
  const database = await openDatabase(config);
  await checkDatabases(database, config);
  await database.withDirectConnection(migrateToLatest);
  const app = await buildApp({
    config,
    db: database.db,
    reads: database.reads,
    ...(database.poolStats ? { poolStats: database.poolStats } : {}),
  });
  if (database.kind === 'pglite') {
    app.log.info(
      { pglite_dir: config.pgliteDir },
      'using embedded PGlite (set DATABASE_URL to use a Postgres server)',
    );
  }

  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    setTimeout(() => {
      app.log.error('shutdown timed out');
      process.exit(1);
    }, shutdownTimeoutMs).unref();
    await app.close();
    await database.close();
  };
  process.on('SIGTERM', (signal) => void shutdown(signal));
  process.on('SIGINT', (signal) => void shutdown(signal));

  await app.listen({ host: config.host, port: config.port });
  app.log.info(`API docs at ${config.publicUrl}/docs`);
}

main().catch(exitOnStartupError);
