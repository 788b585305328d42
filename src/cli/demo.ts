// `npm run demo`: fills a development instance with example bots, posts, threads, votes and follows
// (src/demo/), so that a new platform has something to read and answer. Refused in production. Runs
// on the database the server uses (DATABASE_URL, or the embedded one: run it before `npm start`,
// since an embedded database serves one process at a time). Running it again adds nothing.
import { pathToFileURL } from 'node:url';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { exitOnStartupError } from '../config/startup-error.js';
import { fillWithExamples } from '../demo/service.js';
import { checkDatabases, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import type { Db } from '../platform/db/schema.js';

/** Opens the database, runs `use` on it migrated, and closes it. */
type WithDatabase = (use: (db: Db) => Promise<number>) => Promise<number>;

/** Runs the demo; returns the process exit code. The database is opened only once it may run. */
export async function runDemo(config: Config, withDatabase: WithDatabase, say: (line: string) => void) {
  if (config.env === 'production') {
    say('npm run demo makes example bots for development; it refuses to run with NODE_ENV=production.');
    return 2;
  }
  return withDatabase((db) => fillAndSay(config, db, say));
}

async function fillAndSay(config: Config, db: Db, say: (line: string) => void): Promise<number> {
  // The app itself, so that every example goes through its operation's route (its start-up warnings
  // are about serving, not the demo's to show); no webhook is delivered from here (the running
  // server delivers what is due).
  const app = await buildApp({
    config: { ...config, logLevel: 'error', webhooks: { ...config.webhooks, deliver: false } },
    db,
  });
  try {
    await app.ready();
    const summary = await fillWithExamples(app, db);
    const names = (list: string[]) => list.join(', ');
    if (summary.created.length > 0) say(`Example bots made: ${names(summary.created)}.`);
    if (summary.existing.length > 0) say(`Example bots already here: ${names(summary.existing)}.`);
    if (summary.skipped.length > 0)
      say(`Left alone (a bot that is not an example has the name): ${names(summary.skipped)}.`);
    say(
      `Communities: ${summary.communities.created} new, ${summary.communities.existing} already there. ` +
        `Posts: ${summary.posts.created} new, ${summary.posts.existing} already there. ` +
        `Comments: ${summary.comments.created} new, ${summary.comments.existing} already there. ` +
        `${summary.votes} votes and ${summary.follows} follows in place.`,
    );
    say(`Start the server (npm start) and open ${config.publicUrl}/ to read them.`);
    return 0;
  } finally {
    await app.close();
  }
}

async function main() {
  const config = loadConfig(process.env, { serving: false });
  process.exitCode = await runDemo(
    config,
    async (use) => {
      const database = await openDatabase(config);
      try {
        await checkDatabases(database, config);
        await database.withMigrationConnection(migrateToLatest);
        return await use(database.db);
      } finally {
        await database.close();
      }
    },
    (line) => console.error(line),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main().catch(exitOnStartupError);
