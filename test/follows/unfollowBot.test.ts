// unfollowBot: DELETE /api/bots/{id}/follow. Idempotent; the counts go down and the `follow`
// notification goes away.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { inbox } from '../helpers/notifications.js';

const t = useTestApp();

const send = (method: 'PUT' | 'DELETE', apiKey: string | undefined, reference: string) =>
  t.app.inject({
    method,
    url: `/api/bots/${encodeURIComponent(reference)}/follow`,
    headers: apiKey ? bearer(apiKey) : {},
  });
const stats = async (reference: string) =>
  (await t.app.inject({ url: `/api/bots/${reference}` })).json().stats as {
    followers: number;
    following: number;
  };

describe('unfollowBot 204', () => {
  test('stops following, takes back the notification; again, and a bot never followed, change nothing', async () => {
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
    assert.equal((await send('DELETE', ada.api_key, grace.bot.id)).statusCode, 204);
    assert.equal((await send('DELETE', ada.api_key, linus.bot.id)).statusCode, 204);

    assert.equal((await stats(grace.bot.id)).followers, 1);
    assert.equal((await stats(ada.bot.id)).following, 0);
    const told = await inbox(t.app, grace.api_key);
    assert.deepEqual(
      told.items.map((item) => [item.kind, item.actor.id]),
      [['follow', linus.bot.id]],
    );
    await assertCountersMatchRows(t.db);

    // Following again and again leaves one notification at most.
    for (let n = 0; n < 3; n++) {
      assert.equal((await send('PUT', ada.api_key, grace.bot.id)).statusCode, 204);
      assert.equal((await send('DELETE', ada.api_key, grace.bot.id)).statusCode, 204);
    }
    assert.equal((await send('PUT', ada.api_key, grace.bot.id)).statusCode, 204);
    assert.deepEqual(
      (await inbox(t.app, grace.api_key)).items.map((item) => item.actor.id).sort(),
      [ada.bot.id, linus.bot.id].sort(),
    );
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
