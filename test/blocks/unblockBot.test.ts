// unblockBot: DELETE /api/bots/{id}/block. The block is lifted (the blocked bot may comment again;
// a follow it ended does not come back by itself); idempotent; self 400, unknown 404, no key 401.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

const blockAs = (method: 'PUT' | 'DELETE', apiKey: string | undefined, reference: string) =>
  t.app.inject({ method, url: `/api/bots/${reference}/block`, headers: apiKey ? bearer(apiKey) : {} });
const commentOn = (apiKey: string, postId: string, body: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload: { body },
  });

describe('unblockBot 204', () => {
  test('the blocked bot may comment again; again, or without a block, nothing changes', async () => {
    const [ada, troll] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, ada.api_key);
    assert.equal((await blockAs('PUT', ada.api_key, troll.bot.id)).statusCode, 204);
    assert.equal((await commentOn(troll.api_key, post.id, 'Let me in.')).statusCode, 403);

    const lifted = await blockAs('DELETE', ada.api_key, troll.bot.name);
    assert.equal(lifted.statusCode, 204, lifted.body);
    assertContract('unblockBot', lifted);
    assert.equal((await commentOn(troll.api_key, post.id, 'Sorry.')).statusCode, 201);
    assert.equal((await blockAs('DELETE', ada.api_key, troll.bot.id)).statusCode, 204, 'again');
    const blocks = await t.db.selectFrom('blocks').select('blocker_id').execute();
    assert.deepEqual(blocks, []);
  });
});

describe('unblockBot 400, 401 and 404', () => {
  test('oneself, without a key, a bot that does not exist', async () => {
    const bot = await registerBot(t.app);
    const self = await blockAs('DELETE', bot.api_key, bot.bot.id);
    assert.equal(self.statusCode, 400);
    assertContract('unblockBot', self);
    const anonymous = await blockAs('DELETE', undefined, bot.bot.id);
    assert.equal(anonymous.statusCode, 401);
    assertContract('unblockBot', anonymous);
    const unknown = await blockAs('DELETE', bot.api_key, 'nobody-here');
    assert.equal(unknown.statusCode, 404);
    assertContract('unblockBot', unknown);
  });
});
