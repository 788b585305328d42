// The API from a page on another origin, in a real browser (the lockfile's Chromium): a dashboard
// served on one port uses the published typed client, bundled for the browser, to call the API on
// another port. Chromium itself enforces CORS: its preflights, which headers a page may read, and
// the cookie operations it must not reach.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../helpers/app.js';
import { launchChromium } from '../../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { serverLogStream } from '../../helpers/logs.js';

let database: TestDatabase;
let app: FastifyInstance;
let apiUrl: string;
let dashboard: Server;
let dashboardUrl: string;
let browser: Browser;
/** The client as the page imports it (bundled for the browser from clients/typescript/dist). */
type Client = typeof import('../../../clients/typescript/dist/index.js');
let page: Page;
/** The preflights the API received, as `OPTIONS path`. */
const preflights: string[] = [];

before(async () => {
  database = await createTestDatabase();
  app = await buildApp({ config: testConfig(), db: database.db, logStream: serverLogStream() });
  app.addHook('onRequest', async (request) => {
    if (request.method === 'OPTIONS') preflights.push(`OPTIONS ${request.url}`);
  });
  apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = await build({
    entryPoints: [fileURLToPath(new URL('../../../clients/typescript/dist/index.js', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  });
  const script = client.outputFiles[0]!.text;
  dashboard = createServer((request, response) => {
    if (request.url === '/client.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>A dashboard</title><p>Bots, from elsewhere.</p>');
    }
  });
  await new Promise<void>((resolve) => dashboard.listen(0, '127.0.0.1', resolve));
  const address = dashboard.address();
  assert.ok(address && typeof address === 'object');
  dashboardUrl = `http://127.0.0.1:${address.port}`;
  assert.notEqual(new URL(dashboardUrl).origin, new URL(apiUrl).origin);

  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(dashboardUrl);
});
after(async () => {
  await browser?.close();
  dashboard?.close();
  await app?.close();
  await database?.close();
});

describe('the typed client on another origin', () => {
  test('registers a bot, reads itself with its key, posts, and reads the exposed headers', async () => {
    const seen = await page.evaluate(
      async ([baseUrl, clientUrl]) => {
        const { createBotPlatformClient, rateLimitOf } = (await import(clientUrl)) as Client;
        const anonymous = createBotPlatformClient({ baseUrl });
        const registered = await anonymous.POST('/api/bots/register', {
          body: { name: `dash-${Date.now()}`, model: 'gpt-5' },
        });
        if (!registered.data) return { registered: registered.response.status };
        const bot = createBotPlatformClient({ baseUrl, apiKey: registered.data.api_key });
        const me = await bot.GET('/api/bots/me');
        const posted = await bot.POST('/api/feed/posts', {
          params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
          body: { category: 'results', title: 'posted from another origin', body: 'b' },
        });
        const feed = await anonymous.GET('/api/feed', { params: { query: { sort: 'new' } } });
        const etag = feed.response.headers.get('etag') ?? '';
        const unchanged = await anonymous.GET('/api/feed', {
          params: { query: { sort: 'new' }, header: { 'If-None-Match': etag } },
        });
        return {
          registered: registered.response.status,
          me: [me.response.status, me.data?.bot.name === registered.data.bot.name],
          posted: posted.response.status,
          location: posted.response.headers.get('location'),
          requestId: posted.response.headers.get('x-request-id'),
          rateLimit: rateLimitOf(posted.response),
          titles: feed.data?.items.map((item) => item.title),
          etag,
          unchanged: unchanged.response.status,
        };
      },
      [apiUrl, `${dashboardUrl}/client.js`] as const,
    );
    assert.equal(seen.registered, 201);
    assert.deepEqual(seen.me, [200, true]);
    assert.equal(seen.posted, 201);
    assert.match(String(seen.location), /^\/api\/feed\/posts\/[0-9a-f-]{36}$/);
    assert.match(String(seen.requestId), /.+/);
    assert.equal(typeof seen.rateLimit?.remaining, 'number');
    assert.deepEqual(seen.titles, ['posted from another origin']);
    assert.match(String(seen.etag), /^W\/"/);
    assert.equal(seen.unchanged, 304);
    // The browser asked first for what a page may not send unasked: a JSON body, a key.
    assert.ok(preflights.includes('OPTIONS /api/bots/register'), preflights.join('\n'));
    assert.ok(preflights.includes('OPTIONS /api/feed/posts'), preflights.join('\n'));
  });

  test('an error is a problem document the page can read', async () => {
    const seen = await page.evaluate(
      async ([baseUrl, clientUrl]) => {
        const { createBotPlatformClient } = (await import(clientUrl)) as Client;
        const bot = createBotPlatformClient({ baseUrl, apiKey: 'bp_not-a-key' });
        const { error, response } = await bot.GET('/api/bots/me');
        return {
          status: response.status,
          code: error?.code,
          challenge: response.headers.get('www-authenticate'),
        };
      },
      [apiUrl, `${dashboardUrl}/client.js`] as const,
    );
    assert.deepEqual(seen, { status: 401, code: 'unauthorized', challenge: seen.challenge });
    assert.match(String(seen.challenge), /^Bearer/);
  });

  test('the cookie operations, and a header we do not take, are out of reach', async () => {
    // (No named functions in here: the test bundle's helper for them does not exist in the page.)
    const failures = await page.evaluate(
      (baseUrl) =>
        Promise.all(
          (
            [
              ['/api/me', {}],
              ['/api/auth/logout', { method: 'POST' }],
              ['/api/feed', { headers: { 'x-debug-token': '1' } }],
            ] as const
          ).map(([path, init]) =>
            fetch(`${baseUrl}${path}`, init).then(
              (response) => `answered ${response.status}`,
              (error: Error) => error.name,
            ),
          ),
        ),
      apiUrl,
    );
    assert.deepEqual(failures, ['TypeError', 'TypeError', 'TypeError']);
  });
});
