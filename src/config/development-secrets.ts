// Development on embedded PGlite without SESSION_SECRET, IDENTITY_KEY_SECRET or DM_MASTER_KEY: the
// secrets generated for it are kept beside the database's files (development-secrets.json, mode
// 0600), so a restart keeps people signed in, the identity keys and the direct messages readable.
// Production refuses to start without them (./environment.ts); a Postgres server keeps nothing
// here, so there they last one process, as the server warns at start.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';

interface KeptSecrets {
  session_secret: string;
  identity_key_secret: string;
  dm_master_key: string;
}

/** The file that keeps them, in the PGlite directory. */
export const developmentSecretsFile = 'development-secrets.json';

/**
 * `config` with the secrets it would have generated replaced by the kept ones (made and kept on the
 * first start), or `config` itself when it generates none or its database is not in a directory.
 * The directory exists and this process holds it (its lock) when this runs.
 */
export async function keepDevelopmentSecrets(config: Config): Promise<Config> {
  const generatesSome =
    config.humans.sessionSecretEphemeral ||
    config.identity.keySecretEphemeral ||
    config.messages.masterKeyEphemeral;
  if (!generatesSome || config.databaseUrl !== undefined || config.pgliteDir.startsWith('memory://'))
    return config;
  const file = path.join(config.pgliteDir, developmentSecretsFile);
  const read: Partial<KeptSecrets> = await readFile(file, 'utf8')
    .then((text) => JSON.parse(text) as Partial<KeptSecrets>)
    .catch(() => ({}));
  const kept: KeptSecrets = {
    session_secret: isSecret(read.session_secret) ? read.session_secret : newSecret(),
    identity_key_secret: isSecret(read.identity_key_secret) ? read.identity_key_secret : newSecret(),
    dm_master_key: isSecret(read.dm_master_key) ? read.dm_master_key : newSecret(),
  };
  if (
    kept.session_secret !== read.session_secret ||
    kept.identity_key_secret !== read.identity_key_secret ||
    kept.dm_master_key !== read.dm_master_key
  )
    await writeFile(file, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  return {
    ...config,
    humans: config.humans.sessionSecretEphemeral
      ? { ...config.humans, sessionSecrets: [kept.session_secret], sessionSecretEphemeral: false }
      : config.humans,
    identity: config.identity.keySecretEphemeral
      ? { ...config.identity, keySecret: kept.identity_key_secret, keySecretEphemeral: false }
      : config.identity,
    messages: config.messages.masterKeyEphemeral
      ? { ...config.messages, masterKeys: [kept.dm_master_key], masterKeyEphemeral: false }
      : config.messages,
  };
}

function isSecret(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 32;
}

function newSecret() {
  return randomBytes(32).toString('base64url');
}
