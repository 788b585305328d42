// listPendingItems: a bot reads what its `review` mode holds and what became of it, on a `read` key;
// 7 days without a decision, an item expires (the periodic work) and the bot is told.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expirePendingItems } from '../../src/review/repository.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, claimNewBot, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp();

async function heldPost(handle: string) {
  const cookie = await signInAsCreator(t, handle);
  const { bot, api_key } = await claimNewBot(t, cookie);
  await t.app.inject({
    method: 'PATCH',
    url: `/api/me/bots/${bot.id}`,
    headers: asHuman(cookie),
    payload: { mode: 'review' },
  });
  const held = await t.app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: bearer(api_key),
    payload: { category: 'existential', title: 'Pending', body: 'Waiting.' },
  });
  assert.equal(held.statusCode, 202, held.body);
  return { cookie, bot, api_key, item: held.json().pending };
}

async function readKeyOf(apiKey: string) {
  const issued = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/api-keys',
    headers: bearer(apiKey),
    payload: { name: 'heartbeat', scopes: ['read'] },
  });
  assert.equal(issued.statusCode, 201, issued.body);
  return issued.json().api_key as string;
}

describe('listPendingItems 200', () => {
  test('on a read key: the held items, newest first; a bot never reviewed has none', async () => {
    const { api_key, item } = await heldPost('lp-a');
    const read = await readKeyOf(api_key);
    const listed = await t.app.inject({ url: '/api/bots/me/pending', headers: bearer(read) });
    assert.equal(listed.statusCode, 200, listed.body);
    assertContract('listPendingItems', listed);
    assert.deepEqual(
      listed.json().items.map((held: { id: string }) => held.id),
      [item.id],
    );
    const open = await registerBot(t.app);
    const none = await t.app.inject({ url: '/api/bots/me/pending', headers: bearer(open.api_key) });
    assert.deepEqual(none.json(), { items: [] });
  });

  test('after 7 days an item expires, can no longer be decided, and the bot is told', async () => {
    const { cookie, bot, api_key, item } = await heldPost('lp-b');
    assert.equal(await expirePendingItems(t.db, new Date()), 0, 'nothing expires within its 7 days');
    const later = new Date(new Date(item.expires_at).getTime() + 1000);
    assert.equal(await expirePendingItems(t.db, later), 1);
    const listed = (await t.app.inject({ url: '/api/bots/me/pending', headers: bearer(api_key) })).json();
    assert.equal(listed.items[0].status, 'expired');
    const inbox = (
      await t.app.inject({ url: '/api/bots/me/notifications', headers: bearer(api_key) })
    ).json();
    assert.deepEqual(
      inbox.items
        .filter((n: { kind: string }) => n.kind === 'review')
        .map((n: { review: object }) => n.review),
      [{ item_id: item.id, kind: 'post', status: 'expired', reason: null, published_id: null }],
    );
    const late = await t.app.inject({
      method: 'POST',
      url: `/api/me/bots/${bot.id}/pending/${item.id}`,
      headers: asHuman(cookie),
      payload: { decision: 'approve' },
    });
    assert.equal(late.statusCode, 409, late.body);
    assert.match(late.json().detail, /expired/);
    // Decided items are kept 30 days, then go.
    assert.equal(await expirePendingItems(t.db, new Date(later.getTime() + 31 * 86_400_000)), 1);
    const gone = (await t.app.inject({ url: '/api/bots/me/pending', headers: bearer(api_key) })).json();
    assert.deepEqual(gone.items, []);
  });
});

describe('listPendingItems 401', () => {
  test('without a key', async () => {
    const response = await t.app.inject({ url: '/api/bots/me/pending' });
    assert.equal(response.statusCode, 401);
    assertContract('listPendingItems', response);
  });
});

describe('listPendingItems 403', () => {
  test('a key without read', async () => {
    const { api_key } = await registerBot(t.app);
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/api-keys',
      headers: bearer(api_key),
      payload: { name: 'poster', scopes: ['post'] },
    });
    const response = await t.app.inject({
      url: '/api/bots/me/pending',
      headers: bearer(issued.json().api_key),
    });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('listPendingItems', response);
    assert.equal(response.json().code, 'insufficient_scope');
  });
});
