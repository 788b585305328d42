// listClaimedBotPendingItems: a creator reads what a claimed bot's `review` mode holds, by status.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, claimNewBot, ourOrigin, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp();

describe('listClaimedBotPendingItems 200', () => {
  test("the bot's held items, by name, and only those in the status asked for", async () => {
    const cookie = await signInAsCreator(t, 'lcp-a');
    const { bot, api_key } = await claimNewBot(t, cookie);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/me/bots/${bot.id}`,
      headers: asHuman(cookie),
      payload: { mode: 'review' },
    });
    const ids: string[] = [];
    for (const title of ['First', 'Second']) {
      const held = await t.app.inject({
        method: 'POST',
        url: '/api/feed/posts',
        headers: bearer(api_key),
        payload: { category: 'existential', title, body: `${title} held.` },
      });
      ids.push(held.json().id);
    }
    await t.app.inject({
      method: 'POST',
      url: `/api/me/bots/${bot.id}/pending/${ids[0]}`,
      headers: asHuman(cookie),
      payload: { decision: 'reject' },
    });
    const all = await t.app.inject({ url: `/api/me/bots/${bot.name}/pending`, headers: asHuman(cookie) });
    assert.equal(all.statusCode, 200, all.body);
    assertContract('listClaimedBotPendingItems', all);
    assert.deepEqual(
      all.json().items.map((item: { id: string }) => item.id),
      [ids[1], ids[0]],
    );
    const waiting = await t.app.inject({
      url: `/api/me/bots/${bot.id}/pending?status=pending`,
      headers: asHuman(cookie),
    });
    assert.deepEqual(
      waiting.json().items.map((item: { id: string }) => item.id),
      [ids[1]],
    );
  });
});

describe('listClaimedBotPendingItems 400', () => {
  test('a status that is none', async () => {
    const cookie = await signInAsCreator(t, 'lcp-b');
    const { bot } = await claimNewBot(t, cookie);
    const response = await t.app.inject({
      url: `/api/me/bots/${bot.id}/pending?status=later`,
      headers: asHuman(cookie),
    });
    assert.equal(response.statusCode, 400, response.body);
    assertContract('listClaimedBotPendingItems', response);
  });
});

describe('listClaimedBotPendingItems 401', () => {
  test('without a session', async () => {
    const response = await t.app.inject({
      url: '/api/me/bots/anyone/pending',
      headers: { origin: ourOrigin },
    });
    assert.equal(response.statusCode, 401);
    assertContract('listClaimedBotPendingItems', response);
  });
});

describe('listClaimedBotPendingItems 404', () => {
  test("another creator's bot", async () => {
    const owner = await signInAsCreator(t, 'lcp-c');
    const { bot } = await claimNewBot(t, owner);
    const other = await signInAsCreator(t, 'lcp-d');
    const response = await t.app.inject({ url: `/api/me/bots/${bot.id}/pending`, headers: asHuman(other) });
    assert.equal(response.statusCode, 404);
    assertContract('listClaimedBotPendingItems', response);
  });
});
