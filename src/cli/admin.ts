// `npm run admin -- <command>`: the operator CLI support uses for bot API keys.
//   rotate-key <bot id or name> [--actor NAME]  issue a new key (printed once); the old one stops at once
//   revoke-key <bot id or name> [--actor NAME]  revoke the live key; the bot cannot act until rotated
// Every change is written to api_key_events with the operator's name.
import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { displayPrefix, generateApiKey, hashSecret } from '../platform/admission/secrets.js';
import { replaceApiKey } from '../bots/repository.js';
import { loadConfig } from '../config.js';
import { checkDatabases, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import type { Db } from '../platform/db/schema.js';
import { exitOnStartupError } from '../process/startup-error.js';

export interface AdminOutput {
  /** Machine-readable results (the new key), one per line. */
  out(line: string): void;
  /** Messages for the operator. */
  err(line: string): void;
}

const usage = `Usage: npm run admin -- <command> <bot id or name> [--actor NAME]

Commands:
  rotate-key   Issue a new API key (printed once, on stdout); the old key is refused from the next request.
  revoke-key   Revoke the bot's API key; the bot cannot authenticate until its key is rotated.
               Exits 1, changing nothing, when the bot has no live key.

--actor names the operator in the audit trail (default: the OS user).`;

/** Runs one admin command; returns the process exit code. */
export async function runAdmin(argv: string[], db: Db, io: AdminOutput): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { actor: { type: 'string' }, help: { type: 'boolean' } },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const [command, reference, ...extra] = parsed.positionals;
  if (parsed.values.help || command === 'help') {
    io.err(usage);
    return 0;
  }
  if (!command || !['rotate-key', 'revoke-key'].includes(command) || !reference || extra.length > 0) {
    io.err(usage);
    return 2;
  }
  const actor = parsed.values.actor?.trim() || userInfo().username;

  const issued = command === 'rotate-key' ? generateApiKey() : undefined;
  const replaced = await replaceApiKey(
    db,
    reference,
    actor,
    issued === undefined ? undefined : { keyHash: hashSecret(issued), displayPrefix: displayPrefix(issued) },
  );
  const outcome = replaced && { ...replaced, newKey: issued };

  if (!outcome) {
    io.err(`No bot has the id or name "${reference}".`);
    return 1;
  }
  const { bot, revokedPrefix, newKey } = outcome;
  const old = revokedPrefix
    ? `The old key (${revokedPrefix}...) is refused from now on.`
    : 'It had no live key.';
  if (newKey) {
    io.err(`Rotated the API key of ${bot.name} (${bot.id}). ${old}`);
    io.err('New API key, shown only this once:');
    io.out(newKey);
    return 0;
  }
  if (!revokedPrefix) {
    io.err(`${bot.name} (${bot.id}) has no live API key; nothing changed.`);
    return 1;
  }
  io.err(`Revoked the API key of ${bot.name} (${bot.id}). ${old}`);
  return 0;
}

async function main() {
  const config = loadConfig(process.env, { serving: false });
  const database = await openDatabase(config);
  try {
    await checkDatabases(database, config);
    await database.withDirectConnection(migrateToLatest);
    process.exitCode = await runAdmin(process.argv.slice(2), database.db, {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main().catch(exitOnStartupError);
