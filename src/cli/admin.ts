// `npm run admin -- <command>`: the operator CLI for bot API keys and the moderator role (the
// commands: ./admin-commands.ts). While a server runs on embedded PGlite, which one process may open
// at a time, the command runs in that server, asked through its admin channel (./admin-channel.ts);
// otherwise here, on a connection of its own.
import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { keepDevelopmentSecrets } from '../config/development-secrets.js';
import { exitOnStartupError } from '../config/startup-error.js';
import { masterKeys } from '../messages/encryption.js';
import { checkDatabases, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { adminChannelPath, askAdminChannel } from './admin-channel.js';
import { runAdminOn, signInWaysOf, type AdminOutput } from './admin-commands.js';

async function main() {
  const config = loadConfig(process.env, { serving: false });
  const argv = process.argv.slice(2);
  const io: AdminOutput = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
  const operator = userInfo().username;
  if (config.databaseUrl === undefined && !config.pgliteDir.startsWith('memory://')) {
    // rotate-dm-key in a running server uses its keys: it refuses if they are not the ones given here.
    const asked =
      argv[0] === 'rotate-dm-key' && !config.messages.masterKeyEphemeral
        ? [
            ...argv,
            '--expect-keys',
            masterKeys(config.messages.masterKeys)
              .map((master) => master.id)
              .join(','),
          ]
        : argv;
    const answered = await askAdminChannel(adminChannelPath(config.pgliteDir), asked, operator, io);
    if (answered !== undefined) {
      process.exitCode = answered;
      return;
    }
  }
  const database = await openDatabase(config);
  try {
    await checkDatabases(database, config);
    await database.withMigrationConnection(migrateToLatest);
    // On embedded PGlite in development with no key set, the key the server generated and keeps
    // with its data (production generates none: it requires DM_MASTER_KEY to serve).
    const { messages } = config.env === 'production' ? config : await keepDevelopmentSecrets(config);
    process.exitCode = await runAdminOn(database, argv, io, {
      signIn: signInWaysOf(config),
      ...(messages.masterKeyEphemeral ? {} : { masterKeys: messages.masterKeys }),
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      operator,
    });
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main().catch(exitOnStartupError);
