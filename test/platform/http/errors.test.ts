// The one error path: every failure is the same problem+json shape with the request's id, and no
// internals leave the server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../../src/app.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import { logCollector, testConfig, useTestApp } from '../../helpers/app.js';
import { serverLogStream } from '../../helpers/logs.js';
import { assertContract } from '../../helpers/contract.js';
import { createTestDatabase } from '../../helpers/database.js';

const t = useTestApp();

describe('unknown routes', () => {
  test('404 problem+json, for any method and path, including below /api/analytics/', async () => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['POST', '/api/bots'],
      ['GET', '/api/analytics/secrets'],
      ['DELETE', '/api/feed'],
    ] as const) {
      const response = await t.app.inject({ method, url });
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'request_id', 'status', 'title', 'type']);
      assert.equal(body.code, 'not_found');
      assert.equal(body.type, 'urn:bot-platform:problem:not_found');
      assert.equal(body.request_id, response.headers['x-request-id']);
    }
  });

  test('any other path below /api/analytics/ is a 404 problem', async () => {
    for (const url of [
      '/api/analytics/',
      '/api/analytics/overviews',
      '/api/analytics/overview/extra',
      '/api/analytics/bots',
    ]) {
      const response = await t.app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(response.json().code, 'not_found');
    }
  });
});

// A URL with broken percent-encoding (400 malformed_request) is in test/bots/getBot.test.ts, getBot 400.

describe('x-request-id', () => {
  test('a valid incoming id is echoed in the header, the problem body and the logs', async () => {
    const response = await t.app.inject({ url: '/nope', headers: { 'x-request-id': 'trace-42.a_b-c' } });
    assert.equal(response.headers['x-request-id'], 'trace-42.a_b-c');
    assert.equal(response.json().request_id, 'trace-42.a_b-c');
    assert.ok(t.logs.some((line) => JSON.parse(line).request_id === 'trace-42.a_b-c'));
  });

  test('an unsafe or oversized incoming id is replaced by a fresh one', async () => {
    for (const incoming of ['has spaces', '<script>', 'x'.repeat(129), 'a\u0000b']) {
      const response = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': incoming } });
      assert.notEqual(response.headers['x-request-id'], incoming);
      assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
  });

  test("the spec's X-Request-Id pattern is the rule, at both edges: 128 characters and colons kept, 129 replaced", async () => {
    const schema = (loadSpec().components.headers as Record<string, { schema: { pattern?: string } }>)[
      'X-Request-Id'
    ]!.schema;
    assert.ok(schema.pattern, 'openapi.yaml states the pattern of an echoed X-Request-Id');
    const documented = new RegExp(schema.pattern);
    const kept = ['a', 'trace:4bf92f35:00f067aa', `${'x'.repeat(127)}:`];
    const replaced = ['x'.repeat(129), 'a b', 'a/b', 'é'];
    for (const id of kept) assert.ok(documented.test(id), `the spec admits ${id}`);
    for (const id of replaced) assert.ok(!documented.test(id), `the spec refuses ${id}`);
    for (const id of [...kept, ...replaced]) {
      const response = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': id } });
      const echoed = response.headers['x-request-id'];
      if (kept.includes(id)) assert.equal(echoed, id);
      else assert.match(String(echoed), /^[0-9a-f-]{36}$/, `${id} is replaced`);
      assert.match(String(echoed), documented, 'every x-request-id sent matches the documented pattern');
    }
  });

  test('every response carries one, successes included', async () => {
    const response = await t.app.inject({ url: '/healthz' });
    assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});

describe('logs', () => {
  test('authorization and cookie headers are redacted wherever they are logged', async () => {
    const secret = 'bp_SECRETSECRETSECRETSECRETSECRET123456';
    t.app.log.info({ headers: { authorization: `Bearer ${secret}`, cookie: 'bp_session=s3cr3t' } }, 'direct');
    t.app.log.info(
      {
        req: { headers: { authorization: `Bearer ${secret}` } },
        res: { headers: { 'set-cookie': 'bp_session=s3cr3t' } },
      },
      'nested',
    );
    const lines = t.logs.filter((line) => /"msg":"(direct|nested)"/.test(line));
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.ok(!line.includes(secret) && !line.includes('s3cr3t'), line);
    }
    assert.match(lines[0]!, /"authorization":"\[redacted\]"/);
  });
});

describe('security headers', () => {
  test('helmet sets them on API responses', async () => {
    const response = await t.app.inject({ url: '/healthz' });
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.match(String(response.headers['content-security-policy']), /default-src 'self'/);
    assert.doesNotMatch(
      String(response.headers['content-security-policy']),
      /upgrade-insecure-requests/,
      'plain HTTP config',
    );
    assert.equal(response.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP');
  });

  test('behind https, HSTS and upgrade-insecure-requests too, on every route', async () => {
    const app = await buildApp({
      config: testConfig({ publicUrl: 'https://bots.example', trustProxy: true }),
      db: t.db,
      logStream: serverLogStream(),
    });
    try {
      for (const url of ['/healthz', '/api/feed', '/api/me', '/nope']) {
        const response = await app.inject({ url });
        assert.equal(
          response.headers['strict-transport-security'],
          'max-age=31536000; includeSubDomains',
          url,
        );
        assert.match(String(response.headers['content-security-policy']), /upgrade-insecure-requests/, url);
        assert.equal(response.headers['x-frame-options'], 'SAMEORIGIN', url);
      }
    } finally {
      await app.close();
    }
  });
});

describe('500', () => {
  test('an unexpected failure answers internal, without stack, SQL or driver messages, and is logged', async () => {
    const broken = await createTestDatabase();
    const logs: string[] = [];
    const app = await buildApp({ config: testConfig(), db: broken.db, logStream: logCollector(logs) });
    try {
      await sql`drop table bots cascade`.execute(broken.db);
      const response = await app.inject({ url: `/api/bots/${randomUUID()}` });
      assert.equal(response.statusCode, 500);
      assertContract('getBot', response);
      const body = response.json();
      assert.equal(body.code, 'internal');
      assert.equal(body.detail, 'Something went wrong on our side.');
      assert.doesNotMatch(response.body, /relation|does not exist|select |\.ts:\d|stack|42P01/i);
      assert.ok(
        logs.some((line) => /"level":50/.test(line) && /relation/.test(line)),
        'the cause is logged for operators',
      );
    } finally {
      await app.close();
      await broken.close();
    }
  });
});

describe('503', () => {
  test('an unreachable database answers unavailable with Retry-After, and /readyz says so', async () => {
    const unreachable = await openDatabase({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
      pgliteDir: 'memory://',
    });
    const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: unreachable.db });
    try {
      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assertContract('getReadiness', ready);
      assert.equal(ready.headers['retry-after'], '5');

      const read = await app.inject({ url: `/api/bots/${randomUUID()}` });
      assert.equal(read.statusCode, 503);
      assertContract('getBot', read);
      assert.equal(read.json().code, 'unavailable');
      assert.equal(read.headers['retry-after'], '5');
      assert.doesNotMatch(read.body, /ECONNREFUSED|127\.0\.0\.1/);

      const write = await app.inject({
        method: 'POST',
        url: '/api/bots/register',
        payload: { name: 'ada', model: 'gpt-5' },
      });
      assert.equal(write.statusCode, 503);
      assertContract('registerBot', write);

      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'the process itself is alive');
    } finally {
      await app.close();
      await unreachable.close();
    }
  });
});
