// The server's configuration: read from the environment once, validated, and passed in from there.
// This is the only module that reads process.env.
import {
  ConfigError,
  hints,
  loadHumansConfig,
  loadIdentitySettings,
  loadMessageSettings,
  loadMcpSettings,
  parseTrustProxy,
  validate,
  variables,
} from './config/environment.js';
import type { Config, HumansConfig } from './config/settings.js';
import { withoutPasswords } from './config/startup-error.js';

export type * from './config/settings.js';
export { ConfigError, environmentSchema } from './config/environment.js';

export interface LoadOptions {
  /**
   * False for the command-line tools (`npm run migrate`, `npm run admin`), which serve no one: what
   * only serving needs (SESSION_SECRET, SMTP_URL in production) is then not required.
   */
  serving?: boolean;
}

/**
 * A variable's value as an error about it may show it: a secret not at all, a URL without its
 * password (configuration errors are printed, and logs are read by more people than secrets are).
 */
function shownValue(name: string, value: unknown): string {
  if (/SECRET|PASSWORD|TOKEN|_KEY$/.test(name)) return '(a value, not shown: it is a secret)';
  return withoutPasswords(JSON.stringify(value));
}

/** The variables set (an empty one is not), each checked against its schema; every problem named at once. */
function readVariables(environment: NodeJS.ProcessEnv): Record<string, unknown> {
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
        return `${name} ${hints[name] ? `must be ${hints[name]}` : error.message}; got ${shownValue(name, raw[name])}`;
      }),
    );
  }
  return raw;
}

/** Settings that each pass but contradict one another. */
function refuseContradictions(raw: Record<string, unknown>, trustProxy: Config['trustProxy']): void {
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
}

/** TRUST_LIMIT_FACTORS: four factors, levels 0 to 3, none lower than the one before. */
function trustFactorsOf(raw: Record<string, unknown>): Config['trust']['factors'] {
  const trustFactors = (raw.TRUST_LIMIT_FACTORS as string)
    .split(',')
    .map(Number) as unknown as Config['trust']['factors'];
  if (trustFactors.some((factor, level) => factor <= 0 || (level > 0 && factor < trustFactors[level - 1]!))) {
    throw new ConfigError([
      'TRUST_LIMIT_FACTORS must be four numbers above 0, levels 0 to 3, none lower than the one before',
    ]);
  }
  return trustFactors;
}

export function loadConfig(
  environment: NodeJS.ProcessEnv = process.env,
  { serving = true }: LoadOptions = {},
): Config {
  const raw = readVariables(environment);
  const trustProxy = parseTrustProxy(raw.TRUST_PROXY as string);
  if (trustProxy === undefined) {
    throw new ConfigError([
      `TRUST_PROXY must be ${hints.TRUST_PROXY}; got ${JSON.stringify(raw.TRUST_PROXY)}`,
    ]);
  }
  refuseContradictions(raw, trustProxy);
  const port = raw.PORT as number;
  const env = raw.NODE_ENV as Config['env'];
  // Every secret that is missing or too short is named at once, whichever group it belongs to.
  const identity = loadIdentitySettings(raw, env, serving);
  const messages = loadMessageSettings(raw, env, serving);
  const secretProblems = [identity, messages].flatMap((settings) =>
    settings instanceof ConfigError ? settings.problems : [],
  );
  let humans: HumansConfig;
  try {
    humans = loadHumansConfig(environment, raw, env, serving);
  } catch (error) {
    if (error instanceof ConfigError && secretProblems.length > 0)
      throw new ConfigError([...error.problems, ...secretProblems]);
    throw error;
  }
  if (identity instanceof ConfigError || messages instanceof ConfigError)
    throw new ConfigError(secretProblems);
  const mcp = loadMcpSettings(raw);
  const trustFactors = trustFactorsOf(raw);
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
    trust: {
      enabled: raw.TRUST_LEVELS === 'on',
      factors: trustFactors,
    },
    conversations: {
      limit: raw.CONVERSATION_LIMIT === 0 ? null : (raw.CONVERSATION_LIMIT as number),
      maxReplyDepth: raw.MAX_REPLY_DEPTH as number,
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
    responseCache: {
      ttlMs: raw.PAGE_CACHE_TTL_MS as number,
      maxEntries: raw.PAGE_CACHE_MAX_ENTRIES as number,
      maxBytes: (raw.PAGE_CACHE_MAX_MB as number) * 1024 * 1024,
    },
    communitiesPerDay: raw.RATE_LIMIT_COMMUNITIES as number,
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
      'community-acts': raw.RATE_LIMIT_COMMUNITY_ACTS as number,
      registrations: raw.REGISTER_LIMIT_PER_HOUR as number,
    },
    humans,
    identity,
    messages,
    mcp,
  };
}
