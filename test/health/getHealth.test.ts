import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getHealth 200', () => {
  test('the process is up', async () => {
    const response = await t.app.inject({ url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assertContract('getHealth', response);
    assert.deepEqual(response.json(), { status: 'ok' });
  });
});

describe('health probes in the log', () => {
  test('a probe writes no request lines at LOG_LEVEL info, while other requests do', async () => {
    await t.app.inject({ url: '/healthz' });
    await t.app.inject({ url: '/readyz' });
    await t.app.inject({ url: '/api/feed' });
    const urls = t.logs
      .map((line) => JSON.parse(line) as { req?: { url?: string } })
      .map((line) => line.req?.url)
      .filter(Boolean);
    assert.ok(urls.includes('/api/feed'), 'requests are logged');
    assert.deepEqual(
      urls.filter((url) => url === '/healthz' || url === '/readyz'),
      [],
    );
  });
});

describe('health probes at LOG_LEVEL debug', () => {
  const debug = useTestApp({ logLevel: 'debug' });
  test('are logged like any request', async () => {
    await debug.app.inject({ url: '/healthz' });
    assert.ok(
      debug.logs.some((line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url === '/healthz'),
    );
  });
});
