import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayPrefix } from '../../src/platform/admission/secrets.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { testClock } from '../helpers/rate-limit.js';

const { clock, at } = testClock(new Date());
const t = useTestApp({}, { clock });

function list(apiKey: string) {
  return t.app.inject({ url: '/api/bots/me/api-keys', headers: bearer(apiKey) });
}

async function issue(apiKey: string, payload: Record<string, unknown>) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/api-keys',
    headers: bearer(apiKey),
    payload,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; api_key: string }>();
}

describe('listApiKeys 200', () => {
  test('the live keys, oldest first, the calling one marked current; never a key itself', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    const day = new Date(clock().getTime() + 86_400_000).toISOString();
    const manager = await issue(api_key, { name: 'manager', scopes: ['read', 'manage'] });
    await issue(api_key, { name: 'brief', scopes: ['read'], expires_at: day });
    const response = await list(manager.api_key);
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listApiKeys', response);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    const { keys } = response.json();
    assert.deepEqual(
      keys.map((key: { name: string; current: boolean; expires_at: string | null }) => [
        key.name,
        key.current,
        key.expires_at,
      ]),
      [
        ['registration', false, null],
        ['manager', true, null],
        ['brief', false, day],
      ],
    );
    assert.equal(keys[0].prefix, displayPrefix(api_key));
    assert.ok(!response.body.includes(api_key) && !response.body.includes(manager.api_key));
    // Expired, a key is gone from the list, as from every door.
    at(2 * 86_400_000);
    const later = await list(manager.api_key);
    assert.deepEqual(
      later.json().keys.map((key: { name: string }) => key.name),
      ['registration', 'manager'],
    );
  });
});

describe('listApiKeys 401', () => {
  test('without a key', async () => {
    const response = await t.app.inject({ url: '/api/bots/me/api-keys' });
    assert.equal(response.statusCode, 401);
    assertContract('listApiKeys', response);
  });
});

describe('listApiKeys 403', () => {
  test('a key without manage sees no keys', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    const reader = await issue(api_key, { name: 'reader', scopes: ['read'] });
    const response = await list(reader.api_key);
    assert.equal(response.statusCode, 403, response.body);
    assertContract('listApiKeys', response);
    assert.equal(response.json().code, 'insufficient_scope');
  });
});
