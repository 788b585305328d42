// The commands of `npm run admin` (./admin.ts), for bot API keys and the moderator role:
//   rotate-key <bot id or name> [--actor NAME]  issue a new key with every scope (printed once); every old one stops at once
//   revoke-key <bot id or name> [--actor NAME]  revoke every live key; the bot cannot act until rotated
//   grant-moderator <email> [--name NAME] [--actor NAME] [--reason TEXT]   whoever signs in with it moderates
//   revoke-moderator <email> [--actor NAME] [--reason TEXT]
//   create-app-role <role name> [--apply]   the grants of a role the server can run as, owning nothing
//   rotate-dm-key   every conversation's data key wrapped by DM_MASTER_KEY's first key
// Every change is recorded with the operator's name: keys in api_key_events, roles in the moderation log.
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { displayPrefix, generateApiKey, hashSecret } from '../platform/admission/secrets.js';
import { replaceApiKey } from '../bots/repository/keys.js';
import { grantModeratorRole, nameModerator, revokeModeratorRole } from '../moderation/repository/roles.js';
import { roleEmail } from '../moderation/service/roles.js';
import { AppRoleMissingError, appRoleGrants, appRoleName, createAppRole } from '../platform/db/app-role.js';
import type { OpenDatabase } from '../platform/db/database.js';
import type { Db } from '../platform/db/schema.js';
import type { Config } from '../config.js';
import { masterKeys } from '../messages/encryption.js';
import { rewrapDataKeys } from '../messages/keys.js';

export interface AdminOutput {
  /** Machine-readable results (the new key), one per line. */
  out(line: string): void;
  /** Messages for the operator. */
  err(line: string): void;
}

const usage = `Usage: npm run admin -- <command> <bot id or name> [--actor NAME]
       npm run admin -- <role command> <email> [--name NAME] [--actor NAME] [--reason TEXT]
       npm run admin -- create-app-role <role name> [--apply]
       npm run admin -- rotate-dm-key

Commands:
  rotate-key        Issue a new API key with every scope (printed once, on stdout); every old key is refused from the next request.
  revoke-key        Revoke every API key of the bot; it cannot authenticate until its key is rotated.
                    Exits 1, changing nothing, when the bot has no live key.

Role commands:
  grant-moderator   Make whoever signs in with this e-mail address a moderator (they need not have
                    signed in yet). Changes nothing when the address is a moderator already, but
                    for its --name: what the console calls them when they have no creator handle
                    (at most 60 characters; without one, their address's part before the @).
  revoke-moderator  Take the role back. Exits 1, changing nothing, when the address is no moderator.

Database:
  create-app-role   The grants of a database role the server can run as, owning nothing (so its
                    credentials cannot alter a table or disable the moderation log's trigger):
                    printed as SQL for the schema's owner to run, or run with --apply on the
                    migrations' connection (DATABASE_MIGRATION_URL, the owner's). The role is
                    created if it does not exist (the owner needs CREATEROLE for that; otherwise
                    create it first), without a password. Exits 1 when it can do neither.
                    See docs/deploy.md.

Direct messages:
  rotate-dm-key     Wrap every conversation's data key with the first key of DM_MASTER_KEY (or
                    DM_MASTER_KEY_FILE), unwrapping each with the key that wrapped it, while the
                    server runs; no message is encrypted again. Put the new key first and keep the
                    old one after it, run this, then drop the old one. Exits 1 when a key it needs
                    to unwrap is not given (it names its fingerprint; those keys stay as they were).
                    See docs/direct-messages.md.

--actor names the operator in the audit trail and the moderation log (default: the OS user).
--name, for grant-moderator, names the moderator in the console.
--reason says why, in the moderation log (default: "by the operator").`;

const keyCommands = ['rotate-key', 'revoke-key'];
const databaseCommands = ['create-app-role'];
const roleCommands = ['grant-moderator', 'revoke-moderator'];
/** Commands of no bot, address or role: the command alone. */
const messageCommands = ['rotate-dm-key'];

/** How people sign in to the server the command is for (EMAIL_SIGNIN, OAUTH_*): what a role can be used through. */
export interface SignInWays {
  email: boolean;
  providers: string[];
}

export function signInWaysOf(config: Pick<Config, 'humans'>): SignInWays {
  return {
    email: config.humans.emailSignIn,
    providers: config.humans.oauthProviders.map((provider) => provider.name),
  };
}

/** What the admin commands need of the server's configuration. */
export interface AdminOptions {
  statementTimeoutMs?: number;
  /** Who runs it, when --actor does not say. */
  operator?: string;
  signIn?: SignInWays;
  /** DM_MASTER_KEY's keys, the first wrapping (src/messages/encryption.ts); none when it is not set. */
  masterKeys?: string[];
}

/**
 * rotate-dm-key: every data key wrapped by the first master key. `expected`: the fingerprints of
 * the keys the operator gave the command, when it runs in a server (the admin channel) with keys of
 * its own: they must be the same, or it rotates to what the operator did not mean.
 */
async function rotateDmKeyCommand(
  db: Db,
  io: AdminOutput,
  secrets: string[] | undefined,
  expected: string | undefined,
): Promise<number> {
  if (secrets === undefined || secrets.length === 0) {
    io.err(
      'rotate-dm-key needs the master keys: set DM_MASTER_KEY (or DM_MASTER_KEY_FILE) as the server has it, the new key first, then the old ones.',
    );
    return 2;
  }
  const masters = masterKeys(secrets);
  const held = masters.map((master) => master.id).join(',');
  if (expected !== undefined && expected !== held) {
    io.err(
      `The running server holds the master keys ${held}, not the ${expected} given here: restart it with DM_MASTER_KEY as given (the new key first), then run this again. Nothing changed.`,
    );
    return 2;
  }
  const { rewrapped, missing, left } = await rewrapDataKeys(db, masters);
  const current = `the master key ${masters[0]!.id}`;
  const counted = `${rewrapped} conversation key${rewrapped === 1 ? '' : 's'} rewrapped with ${current}`;
  if (missing.length > 0) {
    io.err(
      `${counted}, but some are wrapped by ${missing.join(', ')}, which DM_MASTER_KEY does not hold: add ${missing.length === 1 ? 'it' : 'them'} after the first key and run this again. Those conversations stay readable only with ${missing.length === 1 ? 'that key' : 'those keys'}: drop no key yet.`,
    );
    return 1;
  }
  if (left > 0) {
    io.err(
      `${counted}; ${left} more were wrapped by another key meanwhile (an instance not yet restarted with the new key first?): restart every instance with it, run this again, and drop no key yet.`,
    );
    return 1;
  }
  io.err(
    `Every conversation key is wrapped by ${current} (${rewrapped} rewrapped). ${secrets.length > 1 ? 'The other keys of DM_MASTER_KEY wrap nothing now: drop them.' : 'Nothing else wraps any.'}`,
  );
  return 0;
}

/** create-app-role: the role's grants printed as SQL, or, with --apply, made. */
async function createAppRoleCommand(
  db: Db,
  io: AdminOutput,
  reference: string,
  apply: boolean | undefined,
  statementTimeoutMs: number,
): Promise<number> {
  if (!appRoleName.test(reference)) {
    io.err(
      `"${reference}" is not a role name this command makes: lower-case letters, digits and _, at most 63.`,
    );
    return 2;
  }
  if (!apply) {
    io.out(`-- As the schema's owner, on the database the server uses:`);
    for (const statement of appRoleGrants(reference, { statementTimeoutMs })) io.out(`${statement};`);
    return 0;
  }
  let notSet: string[];
  try {
    ({ notSet } = await createAppRole(db, reference, { statementTimeoutMs }));
  } catch (error) {
    if (!(error instanceof AppRoleMissingError)) throw error;
    io.err(error.message);
    return 1;
  }
  io.err(
    `${reference} may read and write this database's rows, append to the moderation log, and nothing more. ` +
      `Give it a password (ALTER ROLE ${reference} PASSWORD '...') if the server logs in with one, and set ` +
      `DATABASE_URL to it; migrations keep the owner's connection (DATABASE_MIGRATION_URL).`,
  );
  if (notSet.length > 0) {
    // Printed on stdout, as SQL, for an administrator (CREATEROLE) to run: what a pooler cannot set per connection.
    io.err(
      'This connection may not change the role’s settings (it needs CREATEROLE); as an administrator, run:',
    );
    for (const statement of notSet) io.out(`${statement};`);
  }
  return 0;
}

/** rotate-key and revoke-key: a bot's key replaced by a new one shown once, or revoked. */
async function replaceKeyCommand(
  db: Db,
  io: AdminOutput,
  rotate: boolean,
  reference: string,
  actor: string,
): Promise<number> {
  const issued = rotate ? generateApiKey() : undefined;
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

/** Runs one admin command; returns the process exit code. */
export async function runAdmin(
  argv: string[],
  db: Db,
  io: AdminOutput,
  {
    statementTimeoutMs = 5_000,
    operator = userInfo().username,
    signIn = { email: true, providers: [] },
    masterKeys: masterKeysGiven,
  }: AdminOptions = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        actor: { type: 'string' },
        reason: { type: 'string' },
        name: { type: 'string' },
        apply: { type: 'boolean' },
        // rotate-dm-key through a server's admin channel: the fingerprints of the keys the CLI was given.
        'expect-keys': { type: 'string' },
        help: { type: 'boolean' },
      },
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
  if (command !== undefined && messageCommands.includes(command)) {
    const { 'expect-keys': expected, ...others } = parsed.values;
    if (reference !== undefined || Object.values(others).some((value) => value !== undefined)) {
      io.err(usage);
      return 2;
    }
    return rotateDmKeyCommand(db, io, masterKeysGiven, expected);
  }
  const known =
    command !== undefined && [...keyCommands, ...roleCommands, ...databaseCommands].includes(command);
  if (
    !known ||
    !reference ||
    extra.length > 0 ||
    (parsed.values.reason && !roleCommands.includes(command)) ||
    (parsed.values.name !== undefined && command !== 'grant-moderator') ||
    (parsed.values.apply && !databaseCommands.includes(command)) ||
    parsed.values['expect-keys'] !== undefined
  ) {
    io.err(usage);
    return 2;
  }
  if (command === 'create-app-role')
    return createAppRoleCommand(db, io, reference, parsed.values.apply, statementTimeoutMs);
  const actor = parsed.values.actor?.trim() || operator;
  if (roleCommands.includes(command))
    return changeRole(
      db,
      io,
      command === 'grant-moderator',
      {
        email: reference,
        actor,
        reason: parsed.values.reason?.trim() || 'by the operator',
        displayName: parsed.values.name?.trim(),
      },
      signIn,
    );

  return replaceKeyCommand(db, io, command === 'rotate-key', reference, actor);
}

/** What a grant says: how a person holding the role gets to /moderation on this server; or that nobody can. */
function granted(address: string, { email, providers }: SignInWays): string {
  const through = providers.join(', ');
  if (email && providers.length > 0)
    return `${address} is a moderator: whoever signs in with it (an e-mailed link, or ${through} with an account of that address) can use /moderation.`;
  if (email)
    return `${address} is a moderator: whoever signs in with it (an e-mailed link) can use /moderation.`;
  if (providers.length > 0)
    return `${address} is a moderator: whoever signs in through ${through} with an account of that address can use /moderation (e-mail sign-in is off).`;
  return (
    `${address} holds the moderator role, but nobody can use it yet: nobody can sign in to this server, since e-mail ` +
    'sign-in is off (EMAIL_SIGNIN=off) and no sign-in provider is set up (OAUTH_*). Turn one on, and whoever signs in ' +
    'with this address moderates.'
  );
}

async function changeRole(
  db: Db,
  io: AdminOutput,
  grant: boolean,
  {
    email,
    actor,
    reason,
    displayName,
  }: { email: string; actor: string; reason: string; displayName?: string | undefined },
  signIn: SignInWays,
): Promise<number> {
  const address = roleEmail(email);
  if (!address) {
    io.err(`"${email}" is not an e-mail address.`);
    return 2;
  }
  if (reason.length > 500) {
    io.err('--reason must be at most 500 characters.');
    return 2;
  }
  if (displayName !== undefined && (displayName.length === 0 || displayName.length > 60)) {
    io.err('--name must be 1 to 60 characters.');
    return 2;
  }
  const change = { email: address, actor, reason, displayName };
  if (grant) {
    const made = await grantModeratorRole(db, change);
    if (!made && displayName !== undefined) {
      await nameModerator(db, address, displayName);
      io.err(`${address} is a moderator already; the console calls them ${displayName} now.`);
      return 0;
    }
    io.err(made ? granted(address, signIn) : `${address} is a moderator already; nothing changed.`);
    return 0;
  }
  if (!(await revokeModeratorRole(db, change))) {
    io.err(`${address} is not a moderator; nothing changed.`);
    return 1;
  }
  io.err(`${address} is no longer a moderator.`);
  return 0;
}

/**
 * Runs one admin command on an open database: the grants on the migrations' connection (they are
 * the schema owner's to give), everything else on the server's. The CLI and the admin channel both.
 */
export function runAdminOn(
  database: Pick<OpenDatabase, 'db' | 'withMigrationConnection'>,
  argv: string[],
  io: AdminOutput,
  options: AdminOptions,
): Promise<number> {
  return argv[0] === 'create-app-role'
    ? database.withMigrationConnection((owner) => runAdmin(argv, owner, io, options))
    : runAdmin(argv, database.db, io, options);
}
