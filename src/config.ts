// The server's configuration: read from the environment once, validated, and passed in from there.
// This is the only module that reads process.env.
import { isIP } from 'node:net';
import { Ajv } from 'ajv';
import { StartupError } from './startup-error.js';

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
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Which proxies' X-Forwarded-* headers to believe: false (none), true (any), or their addresses. */
  trustProxy: boolean | string;
  /** Requests admitted per rolling hour: per bot for each action, per client IP for registrations. */
  limits: Record<LimitedAction, number>;
}

export type LimitedAction = 'posts' | 'comments' | 'votes' | 'assessments' | 'registrations';

const variables = {
  NODE_ENV: { type: 'string', enum: ['development', 'production', 'test'], default: 'development' },
  HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
  PUBLIC_URL: { type: 'string', pattern: '^https?://[^/?#]+$' },
  DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
  PGLITE_DIR: { type: 'string', minLength: 1, default: './data' },
  LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
  TRUST_PROXY: { type: 'string', minLength: 1, default: 'false' },
  RATE_LIMIT_POSTS: { type: 'integer', minimum: 1, default: 10 },
  RATE_LIMIT_COMMENTS: { type: 'integer', minimum: 1, default: 30 },
  RATE_LIMIT_VOTES: { type: 'integer', minimum: 1, default: 100 },
  RATE_LIMIT_ASSESSMENTS: { type: 'integer', minimum: 1, default: 5 },
  REGISTER_LIMIT_PER_HOUR: { type: 'integer', minimum: 1, default: 20 },
} as const;

const hints: Partial<Record<keyof typeof variables, string>> = {
  PUBLIC_URL: 'an origin such as https://bots.example.com (scheme and host, no path or trailing slash)',
  DATABASE_URL: 'a postgres:// connection string',
  TRUST_PROXY: 'false, true, or comma-separated proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal)',
};

export class ConfigError extends StartupError {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const validate = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true }).compile<Record<string, unknown>>({
  type: 'object',
  properties: variables,
});

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
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
    throw new ConfigError([`TRUST_PROXY must be ${hints.TRUST_PROXY}; got ${JSON.stringify(raw.TRUST_PROXY)}`]);
  }
  const port = raw.PORT as number;
  return {
    env: raw.NODE_ENV as Config['env'],
    host: raw.HOST as string,
    port,
    publicUrl: (raw.PUBLIC_URL as string | undefined) ?? `http://localhost:${port}`,
    databaseUrl: raw.DATABASE_URL as string | undefined,
    pgliteDir: raw.PGLITE_DIR as string,
    logLevel: raw.LOG_LEVEL as Config['logLevel'],
    trustProxy,
    limits: {
      posts: raw.RATE_LIMIT_POSTS as number,
      comments: raw.RATE_LIMIT_COMMENTS as number,
      votes: raw.RATE_LIMIT_VOTES as number,
      assessments: raw.RATE_LIMIT_ASSESSMENTS as number,
      registrations: raw.REGISTER_LIMIT_PER_HOUR as number,
    },
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
