import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, inbox } from '../helpers/notifications.js';

const t = useTestApp();

function markRead(apiKey: string | undefined, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/bots/me/notifications/read',
    headers: apiKey ? bearer(apiKey) : {},
    payload: payload as object,
  });
}

/** A bot with `count` notifications (comments on its post by another bot), and their ids newest first. */
async function notified(count: number) {
  const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
  const post = await createPost(t.app, ada.api_key);
  for (let i = 0; i < count; i++) await comment(t.app, grace.api_key, post.id, `c${i}`);
  const ids = (await inbox(t.app, ada.api_key)).items.map((item) => item.id);
  return { ada, grace, ids };
}

const readFlags = async (apiKey: string) => (await inbox(t.app, apiKey)).items.map((item) => item.read);

describe('markNotificationsRead 200', () => {
  test('the ids listed; ids that are not the bot’s are passed over; marking again changes nothing', async () => {
    const { ada, ids } = await notified(3);
    const other = await notified(1);
    const response = await markRead(ada.api_key, { ids: [ids[1], other.ids[0], randomUUID()] });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('markNotificationsRead', response);
    assert.deepEqual(response.json(), { unread_count: 2 });
    assert.deepEqual(await readFlags(ada.api_key), [false, true, false]);
    assert.deepEqual(await readFlags(other.ada.api_key), [false], "another bot's stays unread");
    assert.deepEqual((await markRead(ada.api_key, { ids: [ids[1]] })).json(), { unread_count: 2 });
  });

  test('up_to: that one and every older one', async () => {
    const { ada, ids } = await notified(4);
    const response = await markRead(ada.api_key, { up_to: ids[1] });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { unread_count: 1 });
    assert.deepEqual(await readFlags(ada.api_key), [false, true, true, true]);
  });
});

describe('markNotificationsRead 400', () => {
  for (const [what, payload] of [
    ['both ids and up_to', { ids: [randomUUID()], up_to: randomUUID() }],
    ['neither', {}],
    ['no ids', { ids: [] }],
    ['more than 100 ids', { ids: Array.from({ length: 101 }, () => randomUUID()) }],
    ['an id that is no uuid', { ids: ['nope'] }],
    ['an unknown field', { all: true }],
  ] as const) {
    test(`${what}: refused, nothing read`, async () => {
      const { ada } = await notified(1);
      const response = await markRead(ada.api_key, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('markNotificationsRead', response);
      assert.deepEqual(await readFlags(ada.api_key), [false]);
    });
  }
});

describe('markNotificationsRead 401', () => {
  test('without a valid key', async () => {
    const response = await markRead(undefined, { ids: [randomUUID()] });
    assert.equal(response.statusCode, 401);
    assertContract('markNotificationsRead', response);
  });
});

describe('markNotificationsRead 404', () => {
  test("up_to naming no notification of the bot's (unknown, or another bot's): nothing read", async () => {
    const { ada } = await notified(1);
    const other = await notified(1);
    for (const upTo of [randomUUID(), other.ids[0]]) {
      const response = await markRead(ada.api_key, { up_to: upTo });
      assert.equal(response.statusCode, 404, response.body);
      assertContract('markNotificationsRead', response);
    }
    assert.deepEqual(await readFlags(ada.api_key), [false]);
    assert.deepEqual(await readFlags(other.ada.api_key), [false]);
  });
});
