// Cross-origin use (openapi.yaml, "Cross-origin use"; plugins/cors.ts): the bot and public API
// answers any origin without credentials and exposes its documented headers; a preflight names the
// path's methods and the request headers we take, or nothing when it asks for more; the cookie
// operations never answer another origin. A real browser on another origin: test/platform/web/cors-browser.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { preflightMaxAgeSeconds } from '../../../src/platform/http/cors.js';
import { useTestApp } from '../../helpers/app.js';
import { bearer, registerBot } from '../../helpers/bots.js';
import { signIn } from '../../helpers/humans.js';

const t = useTestApp();
const origin = 'https://dashboard.example';

const preflight = (url: string, method: string, headers?: string) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    },
  });

const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('preflight 204', () => {
  test('a write with a key, a JSON body and an idempotency key may be sent from any origin', async () => {
    const response = await preflight('/api/feed/posts', 'POST', 'authorization,content-type,idempotency-key');
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers['access-control-allow-credentials'], undefined);
    assert.equal(response.headers['access-control-allow-methods'], 'POST');
    const allowed = String(response.headers['access-control-allow-headers']).toLowerCase().split(', ');
    for (const name of ['authorization', 'content-type', 'idempotency-key', 'if-none-match'])
      assert.ok(allowed.includes(name), `${name} is not allowed: ${allowed.join(', ')}`);
    assert.equal(response.headers['access-control-max-age'], String(preflightMaxAgeSeconds));
    assert.equal(response.headers.vary, 'Access-Control-Request-Method, Access-Control-Request-Headers');
  });

  test('a path with a parameter names each of its methods', async () => {
    const response = await preflight(
      '/api/feed/posts/0b6f3bde-4a3d-4a4e-9f0c-3c1f6a0f3b11',
      'DELETE',
      'Authorization',
    );
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['access-control-allow-methods'], 'GET, DELETE, HEAD');
    assert.equal(response.headers.allow, 'GET, DELETE, HEAD, OPTIONS');
  });

  test('a conditional read of the feed', async () => {
    const response = await preflight('/api/feed', 'GET', 'if-none-match');
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['access-control-allow-origin'], '*');
  });
});

describe('preflight refused (204 with no allow headers)', () => {
  test('a method the path does not take', async () => {
    const response = await preflight('/api/feed/posts', 'PUT', 'content-type');
    assert.equal(response.statusCode, 204);
    assert.deepEqual(corsHeaders(response.headers), []);
  });

  test('a header we do not take', async () => {
    const response = await preflight('/api/feed/posts', 'POST', 'content-type, x-debug-token');
    assert.equal(response.statusCode, 204);
    assert.deepEqual(corsHeaders(response.headers), []);
  });

  test('no method asked for: an OPTIONS request that is no preflight', async () => {
    const response = await t.app.inject({ method: 'OPTIONS', url: '/api/feed/posts' });
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers.allow, 'POST, OPTIONS');
    assert.deepEqual(corsHeaders(response.headers), []);
  });
});

describe('answers to another origin', () => {
  test('a public read: any origin, no credentials, the documented headers exposed', async () => {
    const response = await t.app.inject({ url: '/api/feed', headers: { origin } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers['access-control-allow-credentials'], undefined);
    const exposed = String(response.headers['access-control-expose-headers']).split(', ');
    for (const name of [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'Retry-After',
      'ETag',
      'Location',
      'X-Request-Id',
    ])
      assert.ok(exposed.includes(name), `${name} is not exposed: ${exposed.join(', ')}`);
    assert.ok(!exposed.includes('Set-Cookie'));
    // The same page again comes from memory, with the same headers.
    const again = await t.app.inject({ url: '/api/feed', headers: { origin } });
    assert.equal(again.headers['access-control-allow-origin'], '*');
    assert.equal(
      again.headers['access-control-expose-headers'],
      response.headers['access-control-expose-headers'],
    );
  });

  test('a write with a key, and an error a page must be able to read', async () => {
    const { api_key } = await registerBot(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: { ...bearer(api_key), origin },
      payload: { category: 'results', title: 'from a dashboard', body: 'b' },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers['access-control-allow-origin'], '*');
    const refused = await t.app.inject({ url: '/api/bots/me', headers: { origin } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], '*');
  });
});

describe('cookie operations answer no other origin', () => {
  test('getMe and its preflight carry no CORS header', async () => {
    const cookie = await signIn(t);
    const me = await t.app.inject({ url: '/api/me', headers: { cookie, origin } });
    assert.equal(me.statusCode, 200);
    assert.deepEqual(corsHeaders(me.headers), []);
    const asked = await preflight('/api/me', 'GET');
    assert.notEqual(asked.statusCode, 204);
    assert.deepEqual(corsHeaders(asked.headers), []);
  });
});
