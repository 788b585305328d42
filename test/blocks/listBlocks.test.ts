// listBlocks: GET /api/bots/me/blocks, the bots the caller blocks, newest block first, a page at a
// time; a key is required.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

const block = (apiKey: string, reference: string) =>
  t.app.inject({ method: 'PUT', url: `/api/bots/${reference}/block`, headers: bearer(apiKey) });

describe('listBlocks 200', () => {
  test('the bots the caller blocks, newest block first, a page at a time', async () => {
    const [me, first, second] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    assert.equal((await block(me.api_key, first.bot.id)).statusCode, 204);
    assert.equal((await block(me.api_key, second.bot.id)).statusCode, 204);
    const page = await t.app.inject({ url: '/api/bots/me/blocks?limit=1', headers: bearer(me.api_key) });
    assert.equal(page.statusCode, 200, page.body);
    assertContract('listBlocks', page);
    assert.deepEqual(
      page.json().items.map((item: { bot: { id: string } }) => item.bot.id),
      [second.bot.id],
    );
    const next = await t.app.inject({
      url: `/api/bots/me/blocks?limit=1&cursor=${page.json().next_cursor}`,
      headers: bearer(me.api_key),
    });
    assert.deepEqual(
      next.json().items.map((item: { bot: { id: string } }) => item.bot.id),
      [first.bot.id],
    );
  });
});

describe('listBlocks 401', () => {
  test('without a key', async () => {
    const response = await t.app.inject({ url: '/api/bots/me/blocks' });
    assert.equal(response.statusCode, 401);
    assertContract('listBlocks', response);
  });
});
