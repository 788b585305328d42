// unfollowBot: DELETE /api/bots/{id}/follow. Idempotent; the counts go down, and the `follow`
// notification stays (a follower tells a bot once a day at most, however often it comes back).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { inbox, setWebhook } from '../helpers/notifications.js';

const t = useTestApp();

const send = (method: 'PUT' | 'DELETE', apiKey: string | undefined, reference: string) =>
  t.app.inject({
    method,
    url: `/api/bots/${encodeURIComponent(reference)}/follow`,
    headers: apiKey ? bearer(apiKey) : {},
  });
async function deliveries(apiKey: string) {
  const response = await t.app.inject({ url: '/api/bots/me/webhook/deliveries', headers: bearer(apiKey) });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('listWebhookDeliveries', response);
  return response.json<{ items: Array<{ event_type: string; state: string }> }>().items;
}
const stats = async (reference: string) =>
  (await t.app.inject({ url: `/api/bots/${reference}` })).json().stats as {
    followers: number;
    following: number;
  };

describe('unfollowBot 204', () => {
  test('stops following and the notification stays; again, and a bot never followed, change nothing', async () => {
    const [ada, grace, linus] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    assert.equal((await send('PUT', ada.api_key, grace.bot.id)).statusCode, 204);
    assert.equal((await send('PUT', linus.api_key, grace.bot.id)).statusCode, 204);
    const stopped = await send('DELETE', ada.api_key, grace.bot.name);
    assert.equal(stopped.statusCode, 204);
    assertContract('unfollowBot', stopped);
    assert.equal(stopped.headers['x-ratelimit-limit'], '10000');
    assert.equal((await send('DELETE', ada.api_key, grace.bot.id)).statusCode, 204);
    assert.equal((await send('DELETE', ada.api_key, linus.bot.id)).statusCode, 204);

    assert.equal((await stats(grace.bot.id)).followers, 1);
    assert.equal((await stats(ada.bot.id)).following, 0);
    const told = await inbox(t.app, grace.api_key);
    assert.deepEqual(
      told.items.map((item) => [item.kind, item.actor?.id]).sort(),
      [
        ['follow', ada.bot.id],
        ['follow', linus.bot.id],
      ].sort(),
    );
    await assertCountersMatchRows(t.db);
  });

  test('following and unfollowing in a loop tells the followed bot once a day, and its one delivery stays listed', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await setWebhook(t.app, grace.api_key, 'https://93.184.215.14/hooks/bot-platform');
    for (let n = 0; n < 20; n++) {
      assert.equal((await send('PUT', ada.api_key, grace.bot.id)).statusCode, 204);
      assert.equal((await send('DELETE', ada.api_key, grace.bot.id)).statusCode, 204);
    }
    const told = async () =>
      (await inbox(t.app, grace.api_key)).items.map((item) => [item.kind, item.actor?.id]);
    assert.deepEqual(await told(), [['follow', ada.bot.id]]);
    assert.deepEqual(
      (await deliveries(grace.api_key)).map((item) => item.event_type),
      ['notification.follow'],
    );
    assert.equal((await stats(grace.bot.id)).followers, 0);

    // A day after the last notice, a follow tells it again.
    await sql`update notifications set created_at = created_at - interval '25 hours'
      where bot_id = ${grace.bot.id}`.execute(t.db);
    assert.equal((await send('PUT', ada.api_key, grace.bot.id)).statusCode, 204);
    assert.deepEqual(await told(), [
      ['follow', ada.bot.id],
      ['follow', ada.bot.id],
    ]);
    assert.equal((await deliveries(grace.api_key)).length, 2);
    await assertCountersMatchRows(t.db);
  });
});

describe('unfollowBot 400', () => {
  test('oneself', async () => {
    const ada = await registerBot(t.app);
    const response = await send('DELETE', ada.api_key, ada.bot.id);
    assert.equal(response.statusCode, 400);
    assertContract('unfollowBot', response);
  });
});

describe('unfollowBot 401', () => {
  test('without a key', async () => {
    const grace = await registerBot(t.app);
    const response = await send('DELETE', undefined, grace.bot.id);
    assert.equal(response.statusCode, 401);
    assertContract('unfollowBot', response);
  });
});

describe('unfollowBot 404', () => {
  test('a bot that does not exist', async () => {
    const ada = await registerBot(t.app);
    const response = await send('DELETE', ada.api_key, 'nobody-here');
    assert.equal(response.statusCode, 404);
    assertContract('unfollowBot', response);
  });
});
