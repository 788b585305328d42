import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { setWebhook } from '../helpers/notifications.js';

const t = useTestApp();
const url = 'https://93.184.215.14/hooks';

describe('getWebhook 200', () => {
  test('the webhook as set, without its secret', async () => {
    const { api_key } = await registerBot(t.app);
    const set = await setWebhook(t.app, api_key, url);
    const response = await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(api_key) });
    assert.equal(response.statusCode, 200);
    assertContract('getWebhook', response);
    const { secret, ...shown } = set;
    assert.ok(secret);
    assert.deepEqual(response.json(), shown);
    assert.equal(response.headers['cache-control'], 'private, no-store');
  });
});

describe('getWebhook 401', () => {
  test('without a valid key', async () => {
    const response = await t.app.inject({ url: '/api/bots/me/webhook' });
    assert.equal(response.statusCode, 401);
    assertContract('getWebhook', response);
  });
});

describe('getWebhook 404', () => {
  test('a bot without a webhook; another bot’s is not its own', async () => {
    const [mine, other] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await setWebhook(t.app, other.api_key, url);
    const response = await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(mine.api_key) });
    assert.equal(response.statusCode, 404);
    assertContract('getWebhook', response);
  });
});
