// The environment the configuration is read from: every variable with its schema and its default,
// the hints a wrong value is told with, and the parsers of the variables that are more than a value.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { compileEnvironmentValidator } from './environment-validator.js';
import { StartupError, withoutPasswords } from './startup-error.js';
import type {
  Config,
  HumansConfig,
  IdentitySettings,
  McpSettings,
  MessageSettings,
  OAuthProviderConfig,
} from './settings.js';

/** The store counts hits in a Postgres integer; a larger limit could never be reached anyway. */
const largestLimit = 2_147_483_647;

export const variables = {
  NODE_ENV: { type: 'string', enum: ['development', 'production', 'test'], default: 'development' },
  HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
  PUBLIC_URL: { type: 'string', pattern: '^https?://[^/?#]+$' },
  DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
  DATABASE_DIRECT_URL: { type: 'string', pattern: '^postgres(ql)?://' },
  DATABASE_MIGRATION_URL: { type: 'string', pattern: '^postgres(ql)?://' },
  DATABASE_READ_URL: { type: 'string', pattern: '^postgres(ql)?://' },
  DATABASE_READ_MAX_LAG_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 1000 },
  DATABASE_PREPARED_STATEMENTS: { type: 'string', enum: ['unnamed', 'named'], default: 'unnamed' },
  DATABASE_POOL_MAX: { type: 'integer', minimum: 1, maximum: 1_000, default: 10 },
  DATABASE_STATEMENT_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600_000, default: 5000 },
  PGLITE_DIR: { type: 'string', minLength: 1, default: './data' },
  LOG_LEVEL: {
    type: 'string',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
  },
  TRUST_PROXY: { type: 'string', minLength: 1, default: 'false' },
  RATE_LIMIT_POSTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 10 },
  RATE_LIMIT_COMMENTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 30 },
  RATE_LIMIT_VOTES: { type: 'integer', minimum: 1, maximum: largestLimit, default: 100 },
  RATE_LIMIT_ASSESSMENTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 5 },
  RATE_LIMIT_PROFILE_UPDATES: { type: 'integer', minimum: 1, maximum: largestLimit, default: 20 },
  RATE_LIMIT_KEY_ROTATIONS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 5 },
  RATE_LIMIT_FOLLOWS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 60 },
  RATE_LIMIT_IDENTITY_TOKENS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 60 },
  RATE_LIMIT_REPORTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 20 },
  RATE_LIMIT_COMMUNITIES: { type: 'integer', minimum: 1, maximum: largestLimit, default: 1 },
  RATE_LIMIT_COMMUNITY_ACTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 30 },
  REGISTER_LIMIT_PER_HOUR: { type: 'integer', minimum: 1, maximum: largestLimit, default: 20 },
  IP_LIMIT_FACTOR: { type: 'integer', minimum: 1, default: 5 },
  FLOOD_THRESHOLD: { type: 'integer', minimum: 0, maximum: 1000, default: 3 },
  PROBATION_HOURS: { type: 'integer', minimum: 0, maximum: 8760, default: 0 },
  PROBATION_LIMIT_POSTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 2 },
  PROBATION_LIMIT_COMMENTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 10 },
  PROBATION_LIMIT_VOTES: { type: 'integer', minimum: 1, maximum: largestLimit, default: 30 },
  CONVERSATION_LIMIT: { type: 'integer', minimum: 0, maximum: largestLimit, default: 10 },
  MAX_REPLY_DEPTH: { type: 'integer', minimum: 1, maximum: 1000, default: 32 },
  TRUST_LEVELS: { type: 'string', enum: ['on', 'off'], default: 'on' },
  // Four factors, levels 0 to 3, none lower than the one before.
  TRUST_LIMIT_FACTORS: {
    type: 'string',
    pattern: '^[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?){3}$',
    default: '0.5,1,2,3',
  },
  METRICS_TOKEN: { type: 'string', minLength: 16 },
  REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1000, maximum: 300_000, default: 30_000 },
  HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 1000, maximum: 300_000, default: 10_000 },
  KEEP_ALIVE_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 300_000, default: 5_000 },
  MAX_CONNECTIONS: { type: 'integer', minimum: 1, default: 10_000 },
  HEAP_GROWTH_PERCENT: { type: 'integer', minimum: 0, maximum: 1000, default: 100 },
  EMAIL_SIGNIN: { type: 'string', enum: ['on', 'off'], default: 'on' },
  SESSION_SECRET: { type: 'string', minLength: 1 },
  ALLOWED_ORIGINS: { type: 'string', minLength: 1 },
  SMTP_URL: { type: 'string', pattern: '^smtps?://' },
  MAIL_FROM: { type: 'string', minLength: 3, default: 'bot-platform <no-reply@localhost>' },
  EMAIL_SIGNIN_LIMIT_PER_ADDRESS: { type: 'integer', minimum: 1, default: 5 },
  EMAIL_SIGNIN_LIMIT_PER_IP: { type: 'integer', minimum: 1, default: 20 },
  OAUTH_PROVIDERS: { type: 'string', pattern: '^[a-z0-9_-]{1,32}(,[a-z0-9_-]{1,32})*$' },
  WEBHOOK_DELIVERY: { type: 'string', enum: ['on', 'off'], default: 'on' },
  WEBHOOK_ALLOW_HTTP: { type: 'string', enum: ['true', 'false'], default: 'false' },
  WEBHOOK_ALLOW_PRIVATE: { type: 'string', enum: ['true', 'false'], default: 'false' },
  WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 60_000, default: 10_000 },
  // Seconds to wait before each retry: the first within 30 s, then growing to hours, about a day in all.
  WEBHOOK_RETRY_SCHEDULE: {
    type: 'string',
    pattern: '^[0-9]+(\\.[0-9]+)?(,[0-9]+(\\.[0-9]+)?){0,29}$',
    default: '30,120,600,1800,3600,7200,14400,28800,43200',
  },
  WEBHOOK_DISABLE_AFTER_HOURS: { type: 'number', exclusiveMinimum: 0, maximum: 8760, default: 72 },
  WEBHOOK_POLL_MS: { type: 'integer', minimum: 10, maximum: 60_000, default: 250 },
  WEBHOOK_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 100, default: 8 },
  PAGE_CACHE_TTL_MS: { type: 'integer', minimum: 0, maximum: 5_000, default: 250 },
  PAGE_CACHE_MAX_ENTRIES: { type: 'integer', minimum: 1, maximum: 100_000, default: 1_000 },
  PAGE_CACHE_MAX_MB: { type: 'integer', minimum: 1, maximum: 1_024, default: 16 },
  IDENTITY_KEY_SECRET: { type: 'string', minLength: 1 },
  IDENTITY_KEY_DAYS: { type: 'integer', minimum: 1, maximum: 365, default: 30 },
  DM_MASTER_KEY: { type: 'string', minLength: 1 },
  DM_MASTER_KEY_FILE: { type: 'string', minLength: 1 },
  DM_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36_500, default: 365 },
  MCP_ALLOWED_ORIGINS: { type: 'string', minLength: 1 },
  // What a local client dials (curl, an inspector): a page on another site never sends these names.
  MCP_ALLOWED_HOSTS: { type: 'string', minLength: 1, default: 'localhost,127.0.0.1,[::1]' },
} as const;

export const hints: Partial<Record<keyof typeof variables, string>> = {
  PUBLIC_URL: 'an origin such as https://bots.example.com (scheme and host, no path or trailing slash)',
  DATABASE_URL: 'a postgres:// connection string',
  DATABASE_DIRECT_URL: 'a postgres:// connection string (the primary itself, not a transaction pooler)',
  DATABASE_MIGRATION_URL:
    "a postgres:// connection string (the schema owner's, on the primary itself, not a transaction pooler)",
  DATABASE_READ_URL: 'a postgres:// connection string (a streaming replica of the primary)',
  TRUST_PROXY:
    'false, true, or comma-separated proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal)',
  SMTP_URL: 'an smtp:// or smtps:// URL',
  OAUTH_PROVIDERS:
    'comma-separated provider names of a-z 0-9 _ - (each then configured by OAUTH_<NAME>_* variables)',
};

const originPattern = /^https?:\/\/[^/?#]+$/;

/** The environment's schema (exported for the build, which compiles its validator into the bundle). */
export const environmentSchema = { type: 'object', properties: variables };
export const validate = compileEnvironmentValidator(environmentSchema);

/** A comma-separated variable's items, trimmed, empty ones left out (none when unset). */
function list(value: unknown): string[] {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : [];
}

/** MCP_ALLOWED_ORIGINS and MCP_ALLOWED_HOSTS: origins as ALLOWED_ORIGINS has them, host names without a port. */
export function loadMcpSettings(raw: Record<string, unknown>): McpSettings {
  const allowedOrigins = list(raw.MCP_ALLOWED_ORIGINS);
  const allowedHosts = list(raw.MCP_ALLOWED_HOSTS).map((host) => host.toLowerCase());
  const problems = [
    ...allowedOrigins
      .filter((origin) => !originPattern.test(origin))
      .map(
        (origin) =>
          `MCP_ALLOWED_ORIGINS must list origins such as https://agents.example.com; got ${JSON.stringify(origin)}`,
      ),
    ...allowedHosts
      .filter((host) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(host))
      .map(
        (host) =>
          `MCP_ALLOWED_HOSTS must list host names without a port, such as bots.example.com or [::1]; got ${JSON.stringify(host)}`,
      ),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return { allowedOrigins, allowedHosts };
}

/** IDENTITY_KEY_SECRET and IDENTITY_KEY_DAYS, or the problems with them (thrown with any others). */
export function loadIdentitySettings(
  raw: Record<string, unknown>,
  env: Config['env'],
  serving: boolean,
): IdentitySettings | ConfigError {
  const given = raw.IDENTITY_KEY_SECRET as string | undefined;
  if (given === undefined && env === 'production' && serving)
    return new ConfigError([
      'IDENTITY_KEY_SECRET must be set in production: at least 32 characters, the same on every instance; it encrypts the keys that sign identity tokens',
    ]);
  if (given !== undefined && given.length < 32)
    return new ConfigError(['IDENTITY_KEY_SECRET must be at least 32 characters']);
  return {
    keySecret: given ?? randomBytes(32).toString('base64url'),
    keySecretEphemeral: given === undefined,
    keyDays: raw.IDENTITY_KEY_DAYS as number,
  };
}

/**
 * DM_MASTER_KEY (or the file DM_MASTER_KEY_FILE names, its keys one per line) and
 * DM_RETENTION_DAYS, or the problems with them: a comma-separated list whose first key wraps every
 * new conversation key (the others only unwrap, until `rotate-dm-key` has rewrapped their keys).
 */
export function loadMessageSettings(
  raw: Record<string, unknown>,
  env: Config['env'],
  serving: boolean,
  readText: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): MessageSettings | ConfigError {
  const file = raw.DM_MASTER_KEY_FILE as string | undefined;
  if (file !== undefined && raw.DM_MASTER_KEY !== undefined)
    return new ConfigError(['set DM_MASTER_KEY or DM_MASTER_KEY_FILE, not both']);
  let given: string[] = list(raw.DM_MASTER_KEY);
  if (file !== undefined) {
    try {
      given = readText(file)
        .split(/[\n,]/)
        .map((key) => key.trim())
        .filter((key) => key !== '');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      return new ConfigError([`DM_MASTER_KEY_FILE names a file this process cannot read (${code}): ${file}`]);
    }
    if (given.length === 0)
      return new ConfigError([`DM_MASTER_KEY_FILE names a file that holds no key: ${file}`]);
  }
  if (given.length === 0 && env === 'production' && serving)
    return new ConfigError([
      'DM_MASTER_KEY (or DM_MASTER_KEY_FILE) must be set in production: at least 32 characters, the same on every instance, kept outside the database; it wraps the keys that encrypt direct messages',
    ]);
  if (given.some((key) => key.length < 32))
    return new ConfigError([
      `${file === undefined ? 'DM_MASTER_KEY' : 'DM_MASTER_KEY_FILE'}: each key must be at least 32 characters`,
    ]);
  return {
    masterKeys: given.length > 0 ? given : [randomBytes(32).toString('base64url')],
    masterKeyEphemeral: given.length === 0,
    retentionDays: raw.DM_RETENTION_DAYS as number,
  };
}

export function loadHumansConfig(
  environment: NodeJS.ProcessEnv,
  raw: Record<string, unknown>,
  env: Config['env'],
  serving: boolean,
): HumansConfig {
  const problems: string[] = [];
  let sessionSecrets = list(raw.SESSION_SECRET);
  const sessionSecretEphemeral = sessionSecrets.length === 0 && (env !== 'production' || !serving);
  if (sessionSecrets.length === 0 && env === 'production' && serving) {
    problems.push(
      'SESSION_SECRET must be set in production: one secret of at least 32 characters, or a comma-separated list to rotate (the first signs)',
    );
  } else if (sessionSecrets.some((secret) => secret.length < 32)) {
    problems.push(
      'SESSION_SECRET must be at least 32 characters (each one, when it is a comma-separated list)',
    );
  }
  if (sessionSecretEphemeral) sessionSecrets = [randomBytes(32).toString('base64url')];

  const allowedOrigins = list(raw.ALLOWED_ORIGINS);
  for (const origin of allowedOrigins.filter((origin) => !originPattern.test(origin))) {
    problems.push(
      `ALLOWED_ORIGINS must list origins such as https://app.example.com; got ${JSON.stringify(origin)}`,
    );
  }

  const oauthProviders = list(raw.OAUTH_PROVIDERS).map((name): OAuthProviderConfig => {
    const variable = (suffix: string) => {
      const value = environment[`OAUTH_${name.toUpperCase().replaceAll('-', '_')}_${suffix}`];
      return value === undefined || value === '' ? undefined : value;
    };
    const prefix = `OAUTH_${name.toUpperCase().replaceAll('-', '_')}_`;
    const provider = {
      name,
      clientId: variable('CLIENT_ID') ?? '',
      clientSecret: variable('CLIENT_SECRET') ?? '',
      scopes: variable('SCOPES') ?? (variable('ISSUER') ? 'openid email' : ''),
      issuer: variable('ISSUER'),
      authorizationUrl: variable('AUTHORIZATION_URL'),
      tokenUrl: variable('TOKEN_URL'),
      userinfoUrl: variable('USERINFO_URL'),
    };
    if (!provider.clientId || !provider.clientSecret)
      problems.push(`${prefix}CLIENT_ID and ${prefix}CLIENT_SECRET must be set for provider ${name}`);
    if (!provider.issuer && !(provider.authorizationUrl && provider.tokenUrl && provider.userinfoUrl)) {
      problems.push(
        `provider ${name} needs ${prefix}ISSUER (OpenID Connect discovery), or ${prefix}AUTHORIZATION_URL, ${prefix}TOKEN_URL and ${prefix}USERINFO_URL`,
      );
    }
    for (const [key, value] of Object.entries({
      ISSUER: provider.issuer,
      AUTHORIZATION_URL: provider.authorizationUrl,
      TOKEN_URL: provider.tokenUrl,
      USERINFO_URL: provider.userinfoUrl,
    })) {
      if (value !== undefined && !URL.canParse(value))
        problems.push(`${prefix}${key} must be a URL; got ${withoutPasswords(JSON.stringify(value))}`);
    }
    return provider;
  });

  const emailSignIn = raw.EMAIL_SIGNIN === 'on';
  if (env === 'production' && serving && emailSignIn && !raw.SMTP_URL) {
    // Without a mail server the links would go to the log, where anyone who reads it could use them.
    problems.push(
      'SMTP_URL must be set in production to mail sign-in links, or set EMAIL_SIGNIN=off to turn e-mail sign-in off',
    );
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    emailSignIn,
    sessionSecrets,
    sessionSecretEphemeral,
    allowedOrigins,
    smtpUrl: raw.SMTP_URL as string | undefined,
    mailFrom: raw.MAIL_FROM as string,
    emailLimits: {
      perAddress: raw.EMAIL_SIGNIN_LIMIT_PER_ADDRESS as number,
      perIp: raw.EMAIL_SIGNIN_LIMIT_PER_IP as number,
    },
    oauthProviders,
  };
}

const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY as Fastify takes it, or undefined when it is not valid. */
export function parseTrustProxy(value: string): Config['trustProxy'] | undefined {
  if (value === 'false') return false;
  if (value === 'true') return true;
  const entries = value.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (namedRanges.has(entry)) return true;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
  return valid ? entries.join(',') : undefined;
}

export class ConfigError extends StartupError {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
