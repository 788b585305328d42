// The server's configuration: read from the environment once, validated, and passed in from there.
// This is the only module that reads process.env.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { compileEnvironmentValidator } from './process/environment-validator.js';
import { StartupError } from './process/startup-error.js';

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** Origin the platform is reached at, used for links (`next_steps`, sign-in mails). No trailing slash. */
  publicUrl: string;
  /** A Postgres server; when absent the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** PGlite data directory, or `memory://` for a throwaway database. */
  pgliteDir: string;
  /** A direct connection (never a transaction pooler) for what needs a session: LISTEN, and migrations by default. Default: databaseUrl. */
  databaseDirectUrl: string | undefined;
  /** The schema owner's connection, for migrations only, so that the server's own role may own nothing. Default: databaseDirectUrl. */
  databaseMigrationUrl: string | undefined;
  /** A streaming replica that public reads go to while it is fresh enough. */
  databaseReadUrl: string | undefined;
  /** Public reads leave the replica while its replay lag is over this. */
  databaseReadMaxLagMs: number;
  /** `unnamed` (safe behind any transaction pooler) or `named` (prepared once per connection: a direct connection, or PgBouncer 1.21+ with max_prepared_statements). */
  databasePreparedStatements: 'named' | 'unnamed';
  /** Connections each pool (the primary's, the replica's) holds at most, per instance. */
  databasePoolMax: number;
  /** Server-side limit per statement (set per transaction; see docs/deploy.md) and, plus a margin, the client's deadline for any query. */
  databaseStatementTimeoutMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Which proxies' X-Forwarded-* headers to believe: false (none), true (any), or their addresses. */
  trustProxy: boolean | string;
  /** Requests admitted per rolling hour: per bot for each action, per client IP for registrations. */
  limits: Record<LimitedAction, number>;
  /** Per client IP, each limited bot action admits this many times its per-bot limit (see x-rate-limit). */
  ipLimitFactor: number;
  /** The same post body from this many bots within an hour opens a `spam` report on each (0: off). */
  floodThreshold: number;
  /** Lower limits for unclaimed new bots (off while `hours` is 0). */
  probation: ProbationSettings;
  /** Human sessions and sign-in. */
  humans: HumansConfig;
  /** Bearer token `GET /metrics` requires; without one it is open (keep it off the public internet). */
  metricsToken: string | undefined;
  /** How long the HTTP server waits for clients, and how many it holds at once. */
  http: HttpLimits;
  /**
   * After each full garbage collection, the JavaScript heap may grow this many percent over what
   * survived before the next one (V8's `--heap-growing-percent`); 0 leaves it to V8 (up to 300%).
   */
  heapGrowthPercent: number;
  /** How bots' webhooks are delivered (src/webhooks/README.md). */
  webhooks: WebhookSettings;
  /** The feed's first pages kept in memory (src/platform/page-cache/README.md). */
  pageCache: PageCacheLimits;
  /** The keys that sign bots' identity tokens (src/identity/README.md). */
  identity: IdentitySettings;
  /** Who may reach /mcp: DNS-rebinding protection (src/mcp/README.md). */
  mcp: McpSettings;
}

export interface McpSettings {
  /** Origins, besides PUBLIC_URL's, whose browser pages may call /mcp (a request without Origin always may). */
  allowedOrigins: string[];
  /** Host names (no port), besides PUBLIC_URL's, that /mcp answers to; by default the loopback names. */
  allowedHosts: string[];
}

export interface ProbationSettings {
  /** An unclaimed bot younger than this many hours is on probation; 0: no probation. */
  hours: number;
  /** Its limits per rolling hour meanwhile (a lower usual limit still holds). */
  limits: { posts: number; comments: number; votes: number };
}

export interface IdentitySettings {
  /** Encrypts the signing keys' private halves in the database (AES-256-GCM under its SHA-256). */
  keySecret: string;
  /** True when no IDENTITY_KEY_SECRET was set and one was generated for this process (development, tests). */
  keySecretEphemeral: boolean;
  /** A signing key signs for this many days, then the next one does. */
  keyDays: number;
}

export interface PageCacheLimits {
  /** How long a page is given out after the read that made it began; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
}

export interface WebhookSettings {
  /** Whether this process delivers (every process does by default; they share the outbox). */
  deliver: boolean;
  /** `http://` URLs are accepted as well as `https://` (development). */
  allowHttp: boolean;
  /** Loopback, private, link-local and other non-public addresses may be delivered to (tests, development). */
  allowPrivate: boolean;
  /** An attempt that has no 2xx answer by then failed. */
  timeoutMs: number;
  /** The wait before each retry after a failed attempt, in milliseconds; after the last, the delivery failed. */
  retryScheduleMs: number[];
  /** A webhook whose deliveries have failed this long without a success is disabled. */
  disableAfterMs: number;
  /** How often each server process looks for due deliveries when it found none. */
  pollMs: number;
  /** Deliveries in flight at once per server process. */
  concurrency: number;
}

export interface HttpLimits {
  /** A request (headers and body) must arrive in full within this time, or its connection is closed. */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this time. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Connections held at once; more are refused at accept. */
  maxConnections: number;
}

export type LimitedAction =
  | 'posts'
  | 'comments'
  | 'votes'
  | 'assessments'
  | 'profile-updates'
  | 'key-rotations'
  | 'follows'
  | 'identity-tokens'
  | 'reports'
  | 'registrations';
/** What an `x-rate-limit` may name: a limit of `limits`, or the e-mail sign-in requests (humans.emailLimits). */
export type RateLimitAction = LimitedAction | 'sign-in-mails';

export interface HumansConfig {
  /** Secrets that sign session cookies: the first signs, every one is accepted (rotation). */
  sessionSecrets: string[];
  /** True when no SESSION_SECRET was set and one was generated for this process (development, tests). */
  sessionSecretEphemeral: boolean;
  /** Origins, besides PUBLIC_URL's, that may send state-changing cookie requests. */
  allowedOrigins: string[];
  /** Whether e-mail sign-in is offered (EMAIL_SIGNIN=off turns it off: 404). */
  emailSignIn: boolean;
  /** smtp:// or smtps:// URL of the mail server; without one (development and tests only), sign-in links are logged. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Sign-in e-mails per rolling hour, per address and per client IP. */
  emailLimits: { perAddress: number; perIp: number };
  oauthProviders: OAuthProviderConfig[];
}

/**
 * A sign-in provider: an OpenID Connect issuer (discovered from `issuer`), or a plain OAuth 2.0
 * provider described by its endpoints (GitHub-style: no discovery, no ID token, a user-info URL).
 */
export interface OAuthProviderConfig {
  name: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  issuer: string | undefined;
  authorizationUrl: string | undefined;
  tokenUrl: string | undefined;
  userinfoUrl: string | undefined;
}

/** The store counts hits in a Postgres integer; a larger limit could never be reached anyway. */
const largestLimit = 2_147_483_647;

const variables = {
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
  REGISTER_LIMIT_PER_HOUR: { type: 'integer', minimum: 1, maximum: largestLimit, default: 20 },
  IP_LIMIT_FACTOR: { type: 'integer', minimum: 1, default: 5 },
  FLOOD_THRESHOLD: { type: 'integer', minimum: 0, maximum: 1000, default: 3 },
  PROBATION_HOURS: { type: 'integer', minimum: 0, maximum: 8760, default: 0 },
  PROBATION_LIMIT_POSTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 2 },
  PROBATION_LIMIT_COMMENTS: { type: 'integer', minimum: 1, maximum: largestLimit, default: 10 },
  PROBATION_LIMIT_VOTES: { type: 'integer', minimum: 1, maximum: largestLimit, default: 30 },
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
  MCP_ALLOWED_ORIGINS: { type: 'string', minLength: 1 },
  // What a local client dials (curl, an inspector): a page on another site never sends these names.
  MCP_ALLOWED_HOSTS: { type: 'string', minLength: 1, default: 'localhost,127.0.0.1,[::1]' },
} as const;

const hints: Partial<Record<keyof typeof variables, string>> = {
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

export class ConfigError extends StartupError {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The environment's schema (exported for the build, which compiles its validator into the bundle). */
export const environmentSchema = { type: 'object', properties: variables };
const validate = compileEnvironmentValidator(environmentSchema);

export interface LoadOptions {
  /**
   * False for the command-line tools (`npm run migrate`, `npm run admin`), which serve no one: what
   * only serving needs (SESSION_SECRET, SMTP_URL in production) is then not required.
   */
  serving?: boolean;
}

export function loadConfig(
  environment: NodeJS.ProcessEnv = process.env,
  { serving = true }: LoadOptions = {},
): Config {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(variables)) {
    const value = environment[name];
    // An empty variable means "not set", as in most shells' `VAR= command`.
    if (value !== undefined && value !== '') raw[name] = value;
  }
  if (!validate(raw)) {
    throw new ConfigError(
      (validate.errors ?? []).map((error) => {
        const name = error.instancePath.slice(1) as keyof typeof variables;
        return `${name} ${hints[name] ? `must be ${hints[name]}` : error.message}; got ${JSON.stringify(raw[name])}`;
      }),
    );
  }
  const trustProxy = parseTrustProxy(raw.TRUST_PROXY as string);
  if (trustProxy === undefined) {
    throw new ConfigError([
      `TRUST_PROXY must be ${hints.TRUST_PROXY}; got ${JSON.stringify(raw.TRUST_PROXY)}`,
    ]);
  }
  const port = raw.PORT as number;
  const env = raw.NODE_ENV as Config['env'];
  if (typeof raw.PUBLIC_URL === 'string' && raw.PUBLIC_URL.startsWith('https:') && trustProxy === false) {
    // The server speaks plain HTTP, so https means a TLS proxy in front; without trusting it, every
    // request looks like http and Secure session cookies could never be set.
    throw new ConfigError([
      'PUBLIC_URL is https, so the server sits behind a TLS proxy: set TRUST_PROXY to that proxy (its address, or true)',
    ]);
  }
  if ((raw.HEADERS_TIMEOUT_MS as number) > (raw.REQUEST_TIMEOUT_MS as number)) {
    throw new ConfigError([
      'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS (the headers are part of the request)',
    ]);
  }
  for (const name of ['DATABASE_DIRECT_URL', 'DATABASE_MIGRATION_URL', 'DATABASE_READ_URL'] as const) {
    if (raw[name] !== undefined && raw.DATABASE_URL === undefined) {
      throw new ConfigError([`${name} needs DATABASE_URL (the primary) to be set as well`]);
    }
  }
  // Every secret that is missing or too short is named at once, whichever group it belongs to.
  const identity = loadIdentitySettings(raw, env, serving);
  let humans: HumansConfig;
  try {
    humans = loadHumansConfig(environment, raw, env, serving);
  } catch (error) {
    if (error instanceof ConfigError && identity instanceof ConfigError)
      throw new ConfigError([...error.problems, ...identity.problems]);
    throw error;
  }
  if (identity instanceof ConfigError) throw identity;
  const mcp = loadMcpSettings(raw);
  return {
    env,
    host: raw.HOST as string,
    port,
    publicUrl: (raw.PUBLIC_URL as string | undefined) ?? `http://localhost:${port}`,
    databaseUrl: raw.DATABASE_URL as string | undefined,
    pgliteDir: raw.PGLITE_DIR as string,
    databaseDirectUrl: raw.DATABASE_DIRECT_URL as string | undefined,
    databaseMigrationUrl: raw.DATABASE_MIGRATION_URL as string | undefined,
    databaseReadUrl: raw.DATABASE_READ_URL as string | undefined,
    databaseReadMaxLagMs: raw.DATABASE_READ_MAX_LAG_MS as number,
    databasePreparedStatements: raw.DATABASE_PREPARED_STATEMENTS as Config['databasePreparedStatements'],
    databasePoolMax: raw.DATABASE_POOL_MAX as number,
    databaseStatementTimeoutMs: raw.DATABASE_STATEMENT_TIMEOUT_MS as number,
    logLevel: raw.LOG_LEVEL as Config['logLevel'],
    trustProxy,
    ipLimitFactor: raw.IP_LIMIT_FACTOR as number,
    floodThreshold: raw.FLOOD_THRESHOLD as number,
    probation: {
      hours: raw.PROBATION_HOURS as number,
      limits: {
        posts: raw.PROBATION_LIMIT_POSTS as number,
        comments: raw.PROBATION_LIMIT_COMMENTS as number,
        votes: raw.PROBATION_LIMIT_VOTES as number,
      },
    },
    metricsToken: raw.METRICS_TOKEN as string | undefined,
    http: {
      requestTimeoutMs: raw.REQUEST_TIMEOUT_MS as number,
      headersTimeoutMs: raw.HEADERS_TIMEOUT_MS as number,
      keepAliveTimeoutMs: raw.KEEP_ALIVE_TIMEOUT_MS as number,
      maxConnections: raw.MAX_CONNECTIONS as number,
    },
    heapGrowthPercent: raw.HEAP_GROWTH_PERCENT as number,
    webhooks: {
      deliver: raw.WEBHOOK_DELIVERY === 'on',
      allowHttp: raw.WEBHOOK_ALLOW_HTTP === 'true',
      allowPrivate: raw.WEBHOOK_ALLOW_PRIVATE === 'true',
      timeoutMs: raw.WEBHOOK_TIMEOUT_MS as number,
      retryScheduleMs: (raw.WEBHOOK_RETRY_SCHEDULE as string)
        .split(',')
        .map((seconds) => Number(seconds) * 1000),
      disableAfterMs: (raw.WEBHOOK_DISABLE_AFTER_HOURS as number) * 3_600_000,
      pollMs: raw.WEBHOOK_POLL_MS as number,
      concurrency: raw.WEBHOOK_CONCURRENCY as number,
    },
    pageCache: {
      ttlMs: raw.PAGE_CACHE_TTL_MS as number,
      maxEntries: raw.PAGE_CACHE_MAX_ENTRIES as number,
      maxBytes: (raw.PAGE_CACHE_MAX_MB as number) * 1024 * 1024,
    },
    limits: {
      posts: raw.RATE_LIMIT_POSTS as number,
      comments: raw.RATE_LIMIT_COMMENTS as number,
      votes: raw.RATE_LIMIT_VOTES as number,
      assessments: raw.RATE_LIMIT_ASSESSMENTS as number,
      'profile-updates': raw.RATE_LIMIT_PROFILE_UPDATES as number,
      'key-rotations': raw.RATE_LIMIT_KEY_ROTATIONS as number,
      follows: raw.RATE_LIMIT_FOLLOWS as number,
      'identity-tokens': raw.RATE_LIMIT_IDENTITY_TOKENS as number,
      reports: raw.RATE_LIMIT_REPORTS as number,
      registrations: raw.REGISTER_LIMIT_PER_HOUR as number,
    },
    humans,
    identity,
    mcp,
  };
}

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
function loadMcpSettings(raw: Record<string, unknown>): McpSettings {
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
function loadIdentitySettings(
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

function loadHumansConfig(
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
        problems.push(`${prefix}${key} must be a URL; got ${JSON.stringify(value)}`);
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
function parseTrustProxy(value: string): Config['trustProxy'] | undefined {
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
