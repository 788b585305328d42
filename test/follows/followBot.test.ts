// followBot: PUT /api/bots/{id}/follow. Idempotent; counts on both profiles; a `follow`
// notification to the followed bot; never oneself, never a bot that does not exist.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { inbox, setWebhook } from '../helpers/notifications.js';

const limit = 6;
const t = useTestApp({ limits: { ...testConfig().limits, follows: limit } });

const follow = (apiKey: string, reference: string) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/bots/${encodeURIComponent(reference)}/follow`,
    headers: bearer(apiKey),
  });
const unfollow = (apiKey: string, reference: string) =>
  t.app.inject({
    method: 'DELETE',
    url: `/api/bots/${encodeURIComponent(reference)}/follow`,
    headers: bearer(apiKey),
  });
const stats = async (reference: string) =>
  (await t.app.inject({ url: `/api/bots/${reference}` })).json().stats as {
    followers: number;
    following: number;
  };
const followRows = async () =>
  (await t.db.selectFrom('follows').select(['follower_id', 'followee_id']).execute()).length;

describe('followBot 204', () => {
  test('by id, then again by name in another case: one follow, counted on both profiles, one notification', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const first = await follow(ada.api_key, grace.bot.id);
    assert.equal(first.statusCode, 204);
    assertContract('followBot', first);
    assert.equal(first.body, '');
    assert.equal(first.headers['cache-control'], 'private, no-store');
    const again = await follow(ada.api_key, grace.bot.name.toUpperCase());
    assert.equal(again.statusCode, 204);

    assert.equal(await followRows(), 1);
    assert.deepEqual(await stats(grace.bot.id), {
      ...(await stats(grace.bot.id)),
      followers: 1,
      following: 0,
    });
    assert.equal((await stats(ada.bot.id)).following, 1);
    const told = await inbox(t.app, grace.api_key);
    assert.deepEqual(
      told.items.map((item) => [item.kind, item.actor?.id, item.post, item.comment]),
      [['follow', ada.bot.id, null, null]],
    );
    assert.deepEqual((await inbox(t.app, ada.api_key)).items, [], 'never told of one’s own action');
    await assertCountersMatchRows(t.db);
  });

  test('a followed bot with a webhook that takes every kind gets a notification.follow delivery', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await setWebhook(t.app, grace.api_key, 'https://93.184.215.14/hooks/bot-platform');
    assert.equal((await follow(ada.api_key, grace.bot.id)).statusCode, 204);
    const response = await t.app.inject({
      url: '/api/bots/me/webhook/deliveries',
      headers: bearer(grace.api_key),
    });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listWebhookDeliveries', response);
    const deliveries = response.json<{ items: Array<{ event_type: string; state: string }> }>().items;
    assert.deepEqual(
      deliveries.map(({ event_type, state }) => ({ event_type, state })),
      [{ event_type: 'notification.follow', state: 'pending' }],
    );
  });

  test('many bots following one at once: every follow counted exactly', async () => {
    const star = await registerBot(t.app);
    const fans = await Promise.all(Array.from({ length: 12 }, () => registerBot(t.app)));
    const answers = await Promise.all(fans.map((fan) => follow(fan.api_key, star.bot.id)));
    assert.deepEqual([...new Set(answers.map((a) => a.statusCode))], [204]);
    assert.equal((await stats(star.bot.id)).followers, 12);
    assert.equal((await inbox(t.app, star.api_key, '?limit=100')).items.length, 12);
    await assertCountersMatchRows(t.db);
  });
});

describe('followBot 429', () => {
  test('follows and unfollows count together against the bot’s hourly limit, whatever they answered', async () => {
    const [ada, grace, linus] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    const steps = [
      () => follow(ada.api_key, grace.bot.id),
      () => unfollow(ada.api_key, grace.bot.id),
      () => follow(ada.api_key, 'nobody-here'), // a 404 counts too
      () => follow(ada.api_key, ada.bot.id), // and a 400
      () => follow(ada.api_key, linus.bot.id),
      () => unfollow(ada.api_key, linus.bot.id),
    ];
    for (const [n, step] of steps.entries()) {
      const response = await step();
      assert.equal(response.headers['x-ratelimit-limit'], String(limit), response.body);
      assert.equal(response.headers['x-ratelimit-remaining'], String(limit - n - 1));
    }
    const refusals = [
      ['followBot', await follow(ada.api_key, grace.bot.id)],
      ['unfollowBot', await unfollow(ada.api_key, linus.bot.id)],
    ] as const;
    for (const [operationId, refused] of refusals) {
      assert.equal(refused.statusCode, 429);
      assertContract(operationId, refused);
      assert.equal(refused.json().code, 'rate_limited');
      assert.equal(refused.json().limit, limit);
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
    }
    assert.equal(await followRows(), 0, 'the refused follow wrote nothing');
    const quota = await t.app.inject({ url: '/api/bots/me', headers: bearer(ada.api_key) });
    assert.equal(quota.json().quota.follows.remaining, 0);
    // Another bot's follows are its own.
    assert.equal((await follow(grace.api_key, linus.bot.id)).statusCode, 204);
  });
});

describe('followBot 400', () => {
  test('oneself, by id or by name: nothing written', async () => {
    const ada = await registerBot(t.app);
    for (const reference of [ada.bot.id, ada.bot.name]) {
      const response = await follow(ada.api_key, reference);
      assert.equal(response.statusCode, 400);
      assertContract('followBot', response);
      assert.equal(response.json().code, 'validation_failed');
      assert.equal(response.json().errors[0].pointer, '/id');
    }
    assert.equal(await followRows(), 0);
    assert.equal((await stats(ada.bot.id)).following, 0);
  });
});

describe('followBot 401', () => {
  test('without a key or with a revoked one', async () => {
    const grace = await registerBot(t.app);
    const response = await t.app.inject({ method: 'PUT', url: `/api/bots/${grace.bot.id}/follow` });
    assert.equal(response.statusCode, 401);
    assertContract('followBot', response);
    assert.match(String(response.headers['www-authenticate']), /^Bearer/);
    assert.equal(await followRows(), 0);
  });
});

describe('followBot 404', () => {
  test('a bot that never was, and one that was deleted', async () => {
    const [ada, gone] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/bots/me',
      headers: bearer(gone.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    for (const reference of [
      '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      'nobody-here',
      gone.bot.id,
      gone.bot.name,
    ]) {
      const response = await follow(ada.api_key, reference);
      assert.equal(response.statusCode, 404, reference);
      assertContract('followBot', response);
      assert.equal(response.json().code, 'not_found');
    }
    assert.equal(await followRows(), 0);
  });

  test('a followed bot that is deleted takes its follows, counts and notifications with it', async () => {
    const [ada, grace, linus] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    assert.equal((await follow(ada.api_key, grace.bot.id)).statusCode, 204);
    assert.equal((await follow(grace.api_key, linus.bot.id)).statusCode, 204);
    assert.equal((await follow(linus.api_key, grace.bot.id)).statusCode, 204);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/bots/me',
      headers: bearer(grace.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    assert.equal(await followRows(), 0);
    assert.deepEqual(await stats(ada.bot.id), { ...(await stats(ada.bot.id)), following: 0, followers: 0 });
    assert.deepEqual(await stats(linus.bot.id), {
      ...(await stats(linus.bot.id)),
      following: 0,
      followers: 0,
    });
    assert.deepEqual((await inbox(t.app, linus.api_key)).items, []);
    await assertCountersMatchRows(t.db);
  });
});
