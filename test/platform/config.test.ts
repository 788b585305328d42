import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { withoutPasswords } from '../../src/config/startup-error.js';

describe('configuration', () => {
  test('defaults give a working development server on embedded PGlite', () => {
    const { humans, identity, messages, ...config } = loadConfig({});
    assert.deepEqual(config, {
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      pgliteDir: './data',
      databaseDirectUrl: undefined,
      databaseMigrationUrl: undefined,
      databaseReadUrl: undefined,
      databaseReadMaxLagMs: 1000,
      databasePreparedStatements: 'unnamed',
      databasePoolMax: 10,
      databaseStatementTimeoutMs: 5000,
      logLevel: 'info',
      mcp: { allowedOrigins: [], allowedHosts: ['localhost', '127.0.0.1', '[::1]'] },
      trustProxy: false,
      limits: {
        posts: 10,
        comments: 30,
        votes: 100,
        assessments: 5,
        registrations: 20,
        'profile-updates': 20,
        'key-rotations': 5,
        follows: 60,
        'identity-tokens': 60,
        reports: 20,
        'community-acts': 30,
      },
      ipLimitFactor: 5,
      communitiesPerDay: 1,
      floodThreshold: 3,
      probation: { hours: 0, limits: { posts: 2, comments: 10, votes: 30 } },
      trust: { enabled: true, factors: [0.5, 1, 2, 3] },
      conversations: { limit: 10, maxReplyDepth: 32 },
      metricsToken: undefined,
      http: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 5_000,
        maxConnections: 10_000,
      },
      heapGrowthPercent: 100,
      webhooks: {
        deliver: true,
        allowHttp: false,
        allowPrivate: false,
        timeoutMs: 10_000,
        // The first retry within 30 s, then growing to 12 hours: 27.7 hours in all.
        retryScheduleMs: [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200].map((s) => s * 1000),
        disableAfterMs: 72 * 3_600_000,
        pollMs: 250,
        concurrency: 8,
      },
      responseCache: { ttlMs: 250, maxEntries: 1_000, maxBytes: 16 * 1024 * 1024 },
    });
    const { keySecret, ...identitySettings } = identity;
    assert.deepEqual(identitySettings, { keySecretEphemeral: true, keyDays: 30 });
    assert.ok(keySecret.length >= 32);
    assert.notEqual(loadConfig({}).identity.keySecret, keySecret, 'a fresh secret per process');
    const { masterKeys, ...messageSettings } = messages;
    assert.deepEqual(messageSettings, { masterKeyEphemeral: true, retentionDays: 365 });
    assert.equal(masterKeys.length, 1);
    assert.notDeepEqual(loadConfig({}).messages.masterKeys, masterKeys, 'a fresh master key per process');
    const { sessionSecrets, ...rest } = humans;
    assert.deepEqual(rest, {
      emailSignIn: true,
      sessionSecretEphemeral: true,
      allowedOrigins: [],
      smtpUrl: undefined,
      mailFrom: 'bot-platform <no-reply@localhost>',
      emailLimits: { perAddress: 5, perIp: 20 },
      oauthProviders: [],
    });
    assert.equal(sessionSecrets.length, 1);
    assert.ok(sessionSecrets[0]!.length >= 32);
    assert.notEqual(loadConfig({}).humans.sessionSecrets[0], sessionSecrets[0], 'a fresh secret per process');
  });

  test('WEBHOOK_RETRY_SCHEDULE is seconds between attempts; anything else stops the start naming it', () => {
    assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5,2' }).webhooks.retryScheduleMs, [500, 2000]);
    for (const bad of ['soon', '1,,2', '-1', '1;2']) {
      assert.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }), /WEBHOOK_RETRY_SCHEDULE/);
    }
    assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }), /WEBHOOK_ALLOW_PRIVATE/);
  });

  test('a bad value is shown without its password, and a secret not at all', () => {
    const message = (environment: Record<string, string>) => {
      try {
        loadConfig(environment);
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.message;
      }
      return assert.fail('the configuration was accepted');
    };
    const url = message({ DATABASE_URL: 'mysql://app:hunter2@db.internal/platform' });
    assert.match(
      url,
      /DATABASE_URL must be a postgres:\/\/ connection string; got "mysql:\/\/app:\*\*\*@db\.internal\/platform"/,
    );
    const smtp = message({ SMTP_URL: 'ftp://mailer:hunter2@mail.internal' });
    assert.match(smtp, /SMTP_URL .*got "ftp:\/\/mailer:\*\*\*@mail\.internal"/);
    const oauth = message({
      OAUTH_PROVIDERS: 'corp',
      OAUTH_CORP_CLIENT_ID: 'id',
      OAUTH_CORP_CLIENT_SECRET: 'hunter2',
      OAUTH_CORP_ISSUER: 'not a url://user:hunter2@x',
    });
    assert.match(oauth, /OAUTH_CORP_ISSUER must be a URL/);
    for (const said of [url, smtp, oauth]) assert.doesNotMatch(said, /hunter2/);
    assert.equal(
      withoutPasswords('postgres://app:s3cret@/platform?host=/run/postgresql'),
      'postgres://app:***@/platform?host=/run/postgresql',
    );
    assert.equal(withoutPasswords('postgres://app@db/platform'), 'postgres://app@db/platform');
  });

  test('an https PUBLIC_URL needs TRUST_PROXY: the server itself speaks plain HTTP', () => {
    assert.throws(() => loadConfig({ PUBLIC_URL: 'https://bots.example.com' }), /set TRUST_PROXY/);
    assert.equal(
      loadConfig({ PUBLIC_URL: 'https://bots.example.com', TRUST_PROXY: 'loopback' }).publicUrl,
      'https://bots.example.com',
    );
  });

  test('SESSION_SECRET: required in production, at least 32 characters, a list to rotate', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', EMAIL_SIGNIN: 'off' }),
      /SESSION_SECRET must be set in production/,
    );
    assert.throws(
      () => loadConfig({ SESSION_SECRET: 'short' }),
      /SESSION_SECRET must be at least 32 characters/,
    );
    const secrets = ['a'.repeat(32), 'b'.repeat(40)];
    const config = loadConfig({
      NODE_ENV: 'production',
      IDENTITY_KEY_SECRET: 'i'.repeat(32),
      DM_MASTER_KEY: 'm'.repeat(32),
      SESSION_SECRET: secrets.join(','),
      SMTP_URL: 'smtp://mail.example.com:587',
    });
    assert.deepEqual(config.humans.sessionSecrets, secrets);
    assert.equal(config.humans.sessionSecretEphemeral, false);
  });

  test('production never logs sign-in links: it needs SMTP_URL, or e-mail sign-in switched off', () => {
    const production = {
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(32),
      IDENTITY_KEY_SECRET: 'i'.repeat(32),
      DM_MASTER_KEY: 'm'.repeat(32),
    };
    assert.throws(
      () => loadConfig(production),
      /SMTP_URL must be set in production .* or set EMAIL_SIGNIN=off/,
    );
    assert.equal(loadConfig({ ...production, EMAIL_SIGNIN: 'off' }).humans.emailSignIn, false);
    assert.equal(
      loadConfig({ ...production, SMTP_URL: 'smtps://mail.example.com' }).humans.emailSignIn,
      true,
    );
    assert.equal(loadConfig({}).humans.emailSignIn, true, 'development logs links instead');
    assert.throws(() => loadConfig({ EMAIL_SIGNIN: 'maybe' }), /EMAIL_SIGNIN/);
  });

  test('IDENTITY_KEY_SECRET: required in production, at least 32 characters, named with every other missing secret', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32), EMAIL_SIGNIN: 'off' }),
      /IDENTITY_KEY_SECRET must be set in production/,
    );
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', EMAIL_SIGNIN: 'off' }),
      /SESSION_SECRET must be set in production[\s\S]*IDENTITY_KEY_SECRET must be set in production/,
    );
    assert.throws(
      () => loadConfig({ IDENTITY_KEY_SECRET: 'short' }),
      /IDENTITY_KEY_SECRET must be at least 32 characters/,
    );
    assert.throws(() => loadConfig({ IDENTITY_KEY_DAYS: '0' }), /IDENTITY_KEY_DAYS/);
    const config = loadConfig({ IDENTITY_KEY_SECRET: 'k'.repeat(40), IDENTITY_KEY_DAYS: '7' });
    assert.deepEqual(config.identity, { keySecret: 'k'.repeat(40), keySecretEphemeral: false, keyDays: 7 });
  });

  test('DM_MASTER_KEY: required in production, at least 32 characters each, a list to rotate, or a file of them; never with both', () => {
    const production = {
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(32),
      IDENTITY_KEY_SECRET: 'i'.repeat(32),
      EMAIL_SIGNIN: 'off',
    };
    assert.throws(
      () => loadConfig(production),
      /DM_MASTER_KEY \(or DM_MASTER_KEY_FILE\) must be set in production/,
    );
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', EMAIL_SIGNIN: 'off' }),
      /SESSION_SECRET must be set[\s\S]*IDENTITY_KEY_SECRET must be set[\s\S]*DM_MASTER_KEY \(or DM_MASTER_KEY_FILE\) must be set/,
      'named with every other missing secret',
    );
    assert.throws(
      () => loadConfig({ DM_MASTER_KEY: `${'n'.repeat(32)},short` }),
      /DM_MASTER_KEY: each key must be at least 32 characters/,
    );
    const rotating = loadConfig({ ...production, DM_MASTER_KEY: `${'n'.repeat(32)},${'o'.repeat(40)}` });
    assert.deepEqual(rotating.messages, {
      masterKeys: ['n'.repeat(32), 'o'.repeat(40)],
      masterKeyEphemeral: false,
      retentionDays: 365,
    });
    const directory = mkdtempSync(path.join(tmpdir(), 'dm-master-key-'));
    const file = path.join(directory, 'keys');
    writeFileSync(file, `${'p'.repeat(32)}\n${'q'.repeat(33)}\n`);
    assert.deepEqual(loadConfig({ ...production, DM_MASTER_KEY_FILE: file }).messages.masterKeys, [
      'p'.repeat(32),
      'q'.repeat(33),
    ]);
    assert.throws(
      () => loadConfig({ ...production, DM_MASTER_KEY_FILE: path.join(directory, 'missing') }),
      /DM_MASTER_KEY_FILE names a file this process cannot read \(ENOENT\)/,
    );
    assert.throws(
      () => loadConfig({ ...production, DM_MASTER_KEY_FILE: file, DM_MASTER_KEY: 'n'.repeat(32) }),
      /set DM_MASTER_KEY or DM_MASTER_KEY_FILE, not both/,
    );
    // The key itself is never shown in an error, whatever is wrong with it.
    assert.throws(
      () => loadConfig({ DM_MASTER_KEY: 'secret-but-short' }),
      (error: Error) => !error.message.includes('secret-but-short'),
    );
    assert.equal(loadConfig({}).messages.masterKeyEphemeral, true, 'development generates one');
    assert.throws(() => loadConfig({ DM_RETENTION_DAYS: '0' }), /DM_RETENTION_DAYS/);
    rmSync(directory, { recursive: true });
  });

  test('the command-line tools serve no one: in production they need neither SESSION_SECRET nor SMTP_URL', () => {
    const production = { NODE_ENV: 'production' };
    assert.throws(() => loadConfig(production), /SESSION_SECRET must be set in production/);
    assert.throws(() => loadConfig(production), /SMTP_URL must be set in production/);
    assert.throws(() => loadConfig(production), /IDENTITY_KEY_SECRET must be set in production/);
    assert.throws(() => loadConfig(production), /DM_MASTER_KEY \(or DM_MASTER_KEY_FILE\) must be set/);
    const tool = loadConfig(production, { serving: false });
    assert.equal(tool.env, 'production');
    assert.equal(tool.humans.sessionSecretEphemeral, true);
    assert.equal(tool.identity.keySecretEphemeral, true);
    // What is set is still checked.
    assert.throws(
      () => loadConfig({ ...production, SESSION_SECRET: 'short' }, { serving: false }),
      /32 characters/,
    );
  });

  test('trust levels and the loop breaker are read and checked', () => {
    const config = loadConfig({
      TRUST_LEVELS: 'off',
      TRUST_LIMIT_FACTORS: '0.25,1,1.5,4',
      CONVERSATION_LIMIT: '4',
      MAX_REPLY_DEPTH: '8',
    });
    assert.deepEqual(config.trust, { enabled: false, factors: [0.25, 1, 1.5, 4] });
    assert.deepEqual(config.conversations, { limit: 4, maxReplyDepth: 8 });
    assert.throws(() => loadConfig({ TRUST_LIMIT_FACTORS: '2,1,2,3' }), /none lower than the one before/);
    assert.throws(() => loadConfig({ TRUST_LIMIT_FACTORS: '0,1,2,3' }), /above 0/);
    assert.throws(() => loadConfig({ TRUST_LIMIT_FACTORS: '1,2,3' }), /TRUST_LIMIT_FACTORS/);
    assert.equal(
      loadConfig({ CONVERSATION_LIMIT: '0' }).conversations.limit,
      null,
      '0: the loop breaker is off',
    );
    assert.throws(() => loadConfig({ CONVERSATION_LIMIT: '-1' }), /CONVERSATION_LIMIT/);
    assert.throws(() => loadConfig({ MAX_REPLY_DEPTH: '0' }), /MAX_REPLY_DEPTH/);
    assert.throws(() => loadConfig({ TRUST_LEVELS: 'maybe' }), /TRUST_LEVELS/);
  });

  test('timeouts, the connection cap, the per-IP factor, heap growth and the metrics token are read and checked', () => {
    const config = loadConfig({
      REQUEST_TIMEOUT_MS: '20000',
      HEADERS_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      MAX_CONNECTIONS: '500',
      IP_LIMIT_FACTOR: '3',
      HEAP_GROWTH_PERCENT: '0',
      METRICS_TOKEN: 'm'.repeat(16),
    });
    assert.deepEqual(config.http, {
      requestTimeoutMs: 20_000,
      headersTimeoutMs: 5_000,
      keepAliveTimeoutMs: 1_000,
      maxConnections: 500,
    });
    assert.equal(config.ipLimitFactor, 3);
    assert.equal(config.heapGrowthPercent, 0, "0: V8's own heuristics");
    assert.equal(config.metricsToken, 'm'.repeat(16));
    assert.throws(
      () => loadConfig({ HEADERS_TIMEOUT_MS: '40000' }),
      /HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS/,
    );
    assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' }), /REQUEST_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
    assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: '-1' }), /HEAP_GROWTH_PERCENT/);
    assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: '1001' }), /HEAP_GROWTH_PERCENT/);
  });

  test('OAuth providers: an OpenID Connect issuer, or a plain OAuth 2.0 provider by its endpoints', () => {
    const config = loadConfig({
      OAUTH_PROVIDERS: 'google,github',
      OAUTH_GOOGLE_ISSUER: 'https://accounts.google.com',
      OAUTH_GOOGLE_CLIENT_ID: 'g-id',
      OAUTH_GOOGLE_CLIENT_SECRET: 'g-secret',
      OAUTH_GITHUB_AUTHORIZATION_URL: 'https://github.com/login/oauth/authorize',
      OAUTH_GITHUB_TOKEN_URL: 'https://github.com/login/oauth/access_token',
      OAUTH_GITHUB_USERINFO_URL: 'https://api.github.com/user',
      OAUTH_GITHUB_CLIENT_ID: 'gh-id',
      OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
      OAUTH_GITHUB_SCOPES: 'read:user user:email',
    });
    assert.deepEqual(
      config.humans.oauthProviders.map((p) => [p.name, p.issuer ?? p.userinfoUrl, p.scopes]),
      [
        ['google', 'https://accounts.google.com', 'openid email'],
        ['github', 'https://api.github.com/user', 'read:user user:email'],
      ],
    );
    assert.throws(
      () => loadConfig({ OAUTH_PROVIDERS: 'acme', OAUTH_ACME_TOKEN_URL: 'not a url' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.length, 3, error.message);
        return true;
      },
    );
  });

  test('values are read and converted; empty variables count as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      PUBLIC_URL: 'https://bots.example.com',
      DATABASE_URL: 'postgres://u@db/bp',
      TRUST_PROXY: '10.0.0.0/8',
      HOST: '',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, 'https://bots.example.com');
    assert.equal(config.databaseUrl, 'postgres://u@db/bp');
    assert.equal(config.trustProxy, '10.0.0.0/8');
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(
      loadConfig({ TRUST_PROXY: '127.0.0.1, ::1, fd00::/8, loopback' }).trustProxy,
      '127.0.0.1,::1,fd00::/8,loopback',
    );
  });

  test('the scale-out variables: a direct URL, a replica, its lag bound, the statement mode', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@pooler:6432/bp',
      DATABASE_DIRECT_URL: 'postgres://u@primary:5432/bp',
      DATABASE_READ_URL: 'postgres://u@replica:5432/bp',
      DATABASE_READ_MAX_LAG_MS: '250',
      DATABASE_PREPARED_STATEMENTS: 'named',
      DATABASE_STATEMENT_TIMEOUT_MS: '2000',
      DATABASE_POOL_MAX: '25',
    });
    assert.equal(config.databasePoolMax, 25);
    assert.equal(config.databaseDirectUrl, 'postgres://u@primary:5432/bp');
    assert.equal(config.databaseReadUrl, 'postgres://u@replica:5432/bp');
    assert.equal(config.databaseReadMaxLagMs, 250);
    assert.equal(config.databasePreparedStatements, 'named');
    assert.equal(config.databaseStatementTimeoutMs, 2000);
    for (const [name, value] of [
      ['DATABASE_READ_URL', 'mysql://replica'],
      ['DATABASE_DIRECT_URL', 'primary:5432'],
      ['DATABASE_PREPARED_STATEMENTS', 'sometimes'],
      ['DATABASE_POOL_MAX', '0'],
    ]) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: 'postgres://u@db/bp', [name!]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name!),
      );
    }
    // A replica or a direct connection of what? The primary is DATABASE_URL.
    assert.throws(
      () => loadConfig({ DATABASE_READ_URL: 'postgres://u@replica/bp' }),
      (error: unknown) =>
        error instanceof ConfigError && /DATABASE_READ_URL needs DATABASE_URL/.test(error.message),
    );
  });

  test('TRUST_PROXY must name proxies, not anything at all', () => {
    for (const value of ['yes', 'not-an-ip', '10.0.0.0/33', '10.0.0.1/8/2', '127.0.0.1,,']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /TRUST_PROXY must be/);
          return true;
        },
        value,
      );
    }
  });

  test('every invalid variable is reported at once, by name', () => {
    assert.throws(
      () =>
        loadConfig({
          PORT: 'eighty',
          PUBLIC_URL: 'https://bots.example.com/',
          DATABASE_URL: 'mysql://x',
          LOG_LEVEL: 'loud',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((p) => p.split(' ')[0]).sort(), [
          'DATABASE_URL',
          'LOG_LEVEL',
          'PORT',
          'PUBLIC_URL',
        ]);
        assert.match(error.message, /PUBLIC_URL must be an origin/);
        return true;
      },
    );
  });
});

describe('configuration in the built server', () => {
  // dist/server.bundle.js (what `npm start` runs) carries the environment's validator compiled at
  // build time rather than the source's runtime compilation: both must judge an environment alike.
  test('the bundle refuses a bad environment with the same problems as the source', () => {
    const environment = {
      PORT: 'abc',
      RATE_LIMIT_POSTS: '0',
      LOG_LEVEL: 'loud',
      TRUST_PROXY: 'false',
      NODE_ENV: 'test',
    };
    const expected = (() => {
      try {
        loadConfig(environment);
      } catch (error) {
        return (error as ConfigError).message;
      }
      assert.fail('the source accepted a bad environment');
    })();
    const started = spawnSync(process.execPath, ['dist/server.bundle.js'], {
      env: { PATH: process.env.PATH, ...environment },
      encoding: 'utf8',
      timeout: 10_000,
    });
    assert.equal(started.status, 1);
    assert.equal(started.stderr.trim(), expected);
    assert.match(expected, /PORT must be integer/);
  });
});
