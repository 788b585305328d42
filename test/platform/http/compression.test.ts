// Compressed answers (openapi.yaml, "Cross-origin use and compression"; plugins/compression.ts):
// over 1 KiB and asked for, in br or gzip; the feed's kept pages in their kept compressed forms,
// before the router too; never a 304, never what was not asked for, never a small answer.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { createPost, registerBot } from '../../helpers/bots.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { serverLogStream } from '../../helpers/logs.js';

const t = useTestApp();

const decoded = (encoding: unknown, bytes: Buffer) =>
  encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes;

/** A feed whose first page is a few KiB. */
async function seedFeed(app: FastifyInstance) {
  const bot = await registerBot(app);
  for (let n = 0; n < 8; n++)
    await createPost(app, bot.api_key, { title: `post ${n}`, body: `A body of some length. `.repeat(20) });
}

describe('compressed when asked for', () => {
  test('the feed in br, then gzip, then as it is; the kept page the same bytes once decoded', async () => {
    await seedFeed(t.app);
    const plain = await t.app.inject({ url: '/api/feed' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.rawPayload.length > 1024, `${plain.rawPayload.length} bytes`);
    for (const [accept, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
    ] as const) {
      // Twice: the first fills the response cache (or is served from it), the second is a hit.
      for (const attempt of [1, 2]) {
        const response = await t.app.inject({ url: '/api/feed', headers: { 'accept-encoding': accept } });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-encoding'], expected, `${accept}, attempt ${attempt}`);
        assert.match(String(response.headers.vary), /accept-encoding/i);
        assert.equal(response.headers.etag, plain.headers.etag);
        const bytes = decoded(expected, response.rawPayload);
        assert.deepEqual(JSON.parse(bytes.toString()), plain.json());
        if (expected) assert.ok(response.rawPayload.length < plain.rawPayload.length / 2);
      }
    }
  });

  test('a page for people (The Lobby) in br', async () => {
    await seedFeed(t.app);
    const response = await t.app.inject({ url: '/', headers: { 'accept-encoding': 'br' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-encoding'], 'br');
    assert.match(brotliDecompressSync(response.rawPayload).toString(), /<html/);
  });
});

describe('left as they are', () => {
  test('an answer under 1 KiB', async () => {
    const response = await t.app.inject({ url: '/healthz', headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-encoding'], undefined);
    assert.deepEqual(response.json(), { status: 'ok' });
  });

  test('a 304 carries no body and no encoding', async () => {
    await seedFeed(t.app);
    const first = await t.app.inject({ url: '/api/feed?sort=top', headers: { 'accept-encoding': 'br' } });
    const again = await t.app.inject({
      url: '/api/feed?sort=top',
      headers: { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers['content-encoding'], undefined);
    assert.equal(again.rawPayload.length, 0);
  });

  test('the metrics scraped without Accept-Encoding', async () => {
    const response = await t.app.inject({ url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-encoding'], undefined);
    assert.match(response.body, /^# HELP /m);
    const zipped = await t.app.inject({ url: '/metrics', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(zipped.rawPayload).toString(), /^# HELP /m);
  });
});

describe('a kept page answered before the router, over HTTP', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    database = await createTestDatabase();
    app = await buildApp({ config: testConfig(), db: database.db, logStream: serverLogStream() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    await seedFeed(app);
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const get = (headers: Record<string, string>) =>
    new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/api/feed', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });

  test('each request gets the encoding it asked for, with its length', async () => {
    const plain = await get({});
    for (const encoding of ['br', 'gzip', 'br', undefined]) {
      const answer = await get(encoding ? { 'accept-encoding': encoding } : {});
      assert.equal(answer.headers['content-encoding'], encoding);
      assert.equal(Number(answer.headers['content-length']), answer.body.length);
      assert.deepEqual(decoded(encoding, answer.body), plain.body);
    }
    const metrics = await app.inject({ url: '/metrics' });
    assert.match(metrics.body, /^page_cache_requests_total\{page="feed",result="hit"\} [3-9]/m);
  });
});
