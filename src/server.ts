// Starts the platform: configuration, database (PGlite unless DATABASE_URL is set), migrations,
// the app; and stops it gracefully on SIGTERM or SIGINT, whenever the signal comes. The handlers are
// the first thing this module installs, so a signal during start-up is a stop too (never the death
// by signal that Node's default would be): the step under way ends (a migration's transaction
// commits or rolls back whole), start-up goes no further, and what it opened is closed, the app
// first (the requests in flight finish; later ones get a 503) and then the database. Exit code 0.
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { developmentSecretsFile, keepDevelopmentSecrets } from './config/development-secrets.js';
import { checkDatabases, openDatabase } from './platform/db/database.js';
import { checkGrants, migrateToLatest } from './platform/db/migrate.js';
import { exitOnStartupError } from './config/startup-error.js';
import { runAdminOn, signInWaysOf } from './cli/admin-commands.js';
import { adminChannelPath, serveAdminChannel, UnsafeAdminChannelError } from './cli/admin-channel.js';

/** After this long, closing what start-up opened gives up, and the process exits 1. */
const shutdownTimeoutMs = 10_000;

/** Ends start-up at its next step once a stop was asked for. */
class StopRequested extends Error {}

let stopSignal: NodeJS.Signals | undefined;
/** What start-up opened, the last first: what a stop closes. */
const closers: Array<() => Promise<void>> = [];
/** How a stop is told in the log: plainly until the app's logger exists. */
let logStop = (signal: NodeJS.Signals) => console.error(`stopping (${signal}) before start-up finished`);

process.on('SIGTERM', (signal) => void stop(signal));
process.on('SIGINT', (signal) => void stop(signal));
const starting = main();
starting.catch((error: unknown) => {
  // A stop asked for during start-up ends it there; any other failure is start-up's own.
  if (error instanceof StopRequested) return;
  exitOnStartupError(error);
});

async function stop(signal: NodeJS.Signals) {
  if (stopSignal) {
    // A second Ctrl-C does not wait (a long migration, say): out at once, as a shell expects.
    if (signal === 'SIGINT') process.exit(130);
    return;
  }
  stopSignal = signal;
  logStop(signal);
  // The step under way ends first: each is bounded by its own deadlines (a connection's), except a
  // migration, which is not cut in the middle (on PGlite it cannot be).
  await starting.catch(() => {});
  setTimeout(() => {
    console.error('shutdown timed out');
    process.exit(1);
  }, shutdownTimeoutMs).unref();
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      console.error('closing failed:', error);
      process.exitCode = 1;
    }
  }
  // Ended by an explicit exit once nothing is left to run, never by running out of work: a process
  // that runs out closes its handles on the way out, the signals' among them, and a SIGTERM that
  // arrives in those last milliseconds (an orchestrator's repeat, a signal to the process group)
  // would find Node's default and kill it after all. process.exit() keeps the handlers to the end.
  process.once('beforeExit', () => process.exit());
}

/** Registers how to close what a start-up step opened; ends start-up if a stop was asked for. */
function opened(close: () => Promise<void>) {
  closers.unshift(close);
  stopIfAsked();
}

function stopIfAsked() {
  if (stopSignal) throw new StopRequested();
}

async function main() {
  const configured = loadConfig();
  // Memory: under load most of a request's garbage outlives a young-generation collection, and V8
  // then lets the old generation reach up to four times what survived its last full collection
  // before collecting it again. A bound on that growth keeps the peak near the live set (peak RSS
  // under `npm run bench` 211 → 152 MB for a few percent of throughput; bench/README.md). V8 reads
  // this flag at every full collection, so it takes effect set here, at run time.
  if (configured.heapGrowthPercent > 0) {
    setFlagsFromString(`--heap-growing-percent=${configured.heapGrowthPercent}`);
  }
  const database = await openDatabase(configured);
  opened(() => database.close());
  const config = await keepDevelopmentSecrets(configured);
  await checkDatabases(database, config);
  stopIfAsked();
  await database.withMigrationConnection(migrateToLatest);
  await checkGrants(database.db);
  stopIfAsked();
  const app = await buildApp({
    config,
    db: database.db,
    reads: database.reads,
    signals: database.signals,
    ...(database.poolStats ? { poolStats: database.poolStats } : {}),
  });
  opened(() => app.close());
  logStop = (signal) => app.log.info({ signal }, 'shutting down: finishing in-flight requests');
  if (database.kind === 'pglite') {
    app.log.info(
      { pglite_dir: config.pgliteDir },
      'using embedded PGlite (set DATABASE_URL to use a Postgres server)',
    );
    if (config !== configured)
      app.log.info(
        { file: path.join(config.pgliteDir, developmentSecretsFile) },
        'development secrets (no SESSION_SECRET, IDENTITY_KEY_SECRET or DM_MASTER_KEY set) kept with the database: a restart keeps sessions and direct messages',
      );
    // `npm run admin` cannot open the directory this process holds: it asks here instead.
    if (!config.pgliteDir.startsWith('memory://')) {
      try {
        const channel = await serveAdminChannel(adminChannelPath(config.pgliteDir), (argv, io, operator) =>
          runAdminOn(database, argv, io, {
            statementTimeoutMs: config.databaseStatementTimeoutMs,
            operator,
            signIn: signInWaysOf(config),
            masterKeys: config.messages.masterKeys,
          }),
        );
        opened(() => channel.close());
      } catch (error) {
        // Someone else's directory where ours belongs: the server serves, only the channel is off.
        if (!(error instanceof UnsafeAdminChannelError)) throw error;
        app.log.warn(`${error.message} Until then \`npm run admin\` cannot reach this server.`);
      }
    }
  }
  await app.listen({ host: config.host, port: config.port });
  stopIfAsked();
  app.log.info(`API docs at ${config.publicUrl}/docs`);
  if (config.env === 'production' && new URL(config.publicUrl).hostname === 'localhost')
    app.log.warn(
      `PUBLIC_URL is ${config.publicUrl}: the skill files, next_steps, sign-in mails and pages link there. ` +
        'Set PUBLIC_URL to the address people and bots reach this server at (docs/deploy.md).',
    );
  // A V8 flag, so the command line's (set once the process runs, it is unsafe); npm start gives it.
  if (config.env === 'production' && !process.execArgv.includes('--no-regexp-tier-up'))
    app.log.warn(
      'node was started without --no-regexp-tier-up: the text checks run up to eight times as slow on long posts. ' +
        'Start the server with `npm start`, or give node the flags of its start script (docs/deploy.md).',
    );
}
