// The shared harness: the real app on a real database for one test file, rebuilt clean between
// tests. Usage:
//   const t = useTestApp();
//   test('...', async () => { const res = await t.app.inject(...) });
import { Writable } from 'node:stream';
import { after, before, beforeEach } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/platform/db/schema.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { keepLogLine } from './logs.js';

export interface TestApp {
  app: FastifyInstance;
  db: Kysely<Database>;
  database: TestDatabase;
  config: Config;
  /** Every log line the app wrote during the current test. */
  logs: string[];
}

/**
 * Configuration for tests. Limits are high, so that tests of other behaviour (which register and
 * post a lot from one address) are not throttled; the rate-limit tests use the real defaults.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', PUBLIC_URL: 'http://bots.test' });
  return {
    ...base,
    // No delivery worker polling behind every test's back; the webhook tests start their own.
    webhooks: { ...base.webhooks, deliver: false },
    limits: {
      posts: 10_000,
      comments: 10_000,
      votes: 10_000,
      assessments: 10_000,
      'profile-updates': 10_000,
      'key-rotations': 10_000,
      follows: 10_000,
      'identity-tokens': 10_000,
      reports: 10_000,
      'community-acts': 10_000,
      registrations: 10_000,
    },
    // Nor does the loop breaker pause a thread a test fills: its own tests set its limit.
    conversations: { ...base.conversations, limit: 10_000 },
    ...overrides,
  };
}

/** `overrides` may be a function, for values known only once other `before` hooks ran (a server's port). */
export function useTestApp(
  overrides: Partial<Config> | (() => Partial<Config>) = {},
  {
    appRole = false,
    ...options
  }: Pick<AppOptions, 'clock' | 'onRoute' | 'rateLimiting' | 'secretScanning'> & {
    /** The app connects as a role made by `create-app-role`, owning nothing (least privilege); `t.db` stays the owner's. */
    appRole?: boolean;
  } = {},
): TestApp {
  const context = { logs: [] as string[] } as TestApp;
  before(async () => {
    context.database = await createTestDatabase();
    context.db = context.database.db;
    context.config = testConfig(typeof overrides === 'function' ? overrides() : overrides);
    const connected = appRole ? await context.database.asAppRole() : context.database;
    context.app = await buildApp({
      config: context.config,
      db: connected.db,
      signals: connected.signals,
      logStream: logCollector(context.logs),
      ...options,
    });
    await context.app.ready();
  });
  beforeEach(async () => {
    context.logs.length = 0;
    // The database changes behind the app's back: no stream reads it meanwhile, no page is kept.
    context.app.eventStreams.closeAll();
    await context.database.reset();
    context.app.responseCache.invalidate();
  });
  after(async () => {
    await context.app?.close();
    await context.database?.close();
  });
  return context;
}

/** A log stream that keeps each line for the test to read (and for the failure report, see logs.ts). */
export function logCollector(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        lines.push(line);
        keepLogLine(line);
      }
      done();
    },
  });
}
