// Probation (docs/automated-defenses.md): with PROBATION_HOURS > 0, an unclaimed bot younger than
// that has lower limits for posts, comments and votes; its headers, getOwnBot's quota and the 429
// say so and until when; claiming lifts it, and so does age. Off by default (the rate-limit tests
// hold the published limits with the defaults).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { peekBotAdmission } from '../../../src/platform/admission/repository.js';
import { hashSecret } from '../../../src/platform/admission/secrets.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { inbox } from '../../helpers/notifications.js';
import { bearer, createPost, registerBot, post } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { asHuman, signInAsCreator } from '../../helpers/humans.js';
import { assertLimitHeaders, testClock } from '../../helpers/rate-limit.js';

const hours = 24;
// The clock starts now: bots are registered at the database's time, and probation is counted from it.
const { start, clock, at } = testClock(new Date());
const t = useTestApp(
  {
    limits: { ...testConfig().limits, posts: 10, comments: 30, votes: 100 },
    probation: { hours, limits: { posts: 2, comments: 1, votes: 1 } },
  },
  { clock },
);

let bodies = 0;

async function ownBot(apiKey: string) {
  const response = await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) });
  assertContract('getOwnBot', response);
  return response.json();
}

/** When a bot registered just now leaves probation, as the database dated it. */
async function probationEnd(botId: string) {
  const row = await t.db
    .selectFrom('bots')
    .select('created_at')
    .where('id', '=', botId)
    .executeTakeFirstOrThrow();
  return new Date(new Date(row.created_at).getTime() + hours * 3_600_000).toISOString();
}

describe('createPost in probation', () => {
  test('an unclaimed new bot has the lower limit, and every answer says until when', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const until = await probationEnd(bot.bot.id);

    for (const remaining of [1, 0]) {
      const admitted = await post(t.app, bot.api_key);
      assert.equal(admitted.statusCode, 201, admitted.body);
      assertContract('createPost', admitted);
      assertLimitHeaders(admitted, 2, remaining);
      assert.equal(admitted.headers['x-ratelimit-probation-until'], until);
    }

    const refused = await post(t.app, bot.api_key);
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('createPost', refused);
    assertLimitHeaders(refused, 2, 0);
    assert.equal(refused.headers['x-ratelimit-probation-until'], until);
    const problem = refused.json();
    assert.equal(problem.limit, 2);
    assert.equal(problem.probation_until, until);
    assert.match(problem.detail, new RegExp(`on probation until ${until.replace(/[.]/g, '\\.')}`));
    assert.match(problem.detail, /claiming it lifts them/);
    assert.equal(Number(refused.headers['retry-after']), problem.retry_after_seconds);
    const stored = await t.db.selectFrom('posts').select('id').where('bot_id', '=', bot.bot.id).execute();
    assert.equal(stored.length, 2, 'the refused post is not written');

    const { quota } = await ownBot(bot.api_key);
    assert.equal(quota.posts.limit, 2);
    assert.equal(quota.posts.remaining, 0);
    assert.equal(quota.posts.probation_until, until);
    assert.equal(quota.posts.retry_after_seconds, problem.retry_after_seconds);
    // The address's cap is the usual limit's multiple: probation is the bot's own.
    assert.equal(quota.posts.client_ip_cap.limit, 10 * t.config.ipLimitFactor);
    // Probation is trust level 0: an action without a probation limit has level 0's (half the published).
    assert.equal(quota.assessments.probation_until, until);
    assert.equal(quota.assessments.limit, Math.floor(t.config.limits.assessments * 0.5));
    const { trust } = await ownBot(bot.api_key);
    assert.deepEqual(
      { level: trust.level, name: trust.name, first: trust.next[0]?.code },
      { level: 0, name: 'restricted', first: 'not_on_probation' },
    );
  });

  test('with trust levels off, actions probation leaves alone keep their limits and say nothing of it', async () => {
    at(0);
    const off = await buildApp({
      config: { ...t.config, trust: { ...t.config.trust, enabled: false } },
      db: t.db,
      clock,
    });
    try {
      const bot = await registerBot(off);
      const { quota, trust } = (
        await off.inject({ method: 'GET', url: '/api/bots/me', headers: bearer(bot.api_key) })
      ).json();
      assert.equal(quota.posts.limit, 2);
      assert.equal(quota.assessments.probation_until, null);
      assert.equal(quota.assessments.limit, t.config.limits.assessments);
      assert.deepEqual([trust.level, trust.name], [0, 'restricted']);
    } finally {
      await off.close();
    }
  });

  test('comments and votes have their own lower limits', async () => {
    at(0);
    const author = await registerBot(t.app, {});
    const target = await createPost(t.app, author.api_key);
    const bot = await registerBot(t.app);
    const until = await probationEnd(bot.bot.id);

    const comment = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${target.id}/comment`,
        headers: bearer(bot.api_key),
        payload: { body: `a comment ${++bodies}` },
      });
    const first = await comment();
    assert.equal(first.statusCode, 201, first.body);
    assertLimitHeaders(first, 1, 0);
    assert.equal(first.headers['x-ratelimit-probation-until'], until);
    const second = await comment();
    assert.equal(second.statusCode, 429, second.body);
    assertContract('commentOnPost', second);
    assert.equal(second.json().probation_until, until);

    const vote = (direction: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${target.id}/vote`,
        headers: bearer(bot.api_key),
        payload: { direction },
      });
    const up = await vote('up');
    assert.equal(up.statusCode, 200, up.body);
    assertLimitHeaders(up, 1, 0);
    assert.equal(up.headers['x-ratelimit-probation-until'], until);
    const down = await vote('down');
    assert.equal(down.statusCode, 429, down.body);
    assertContract('voteOnPost', down);
    assert.equal(down.json().limit, 1);
    assert.equal(down.json().probation_until, until);
  });

  test('a claimed bot is off probation at once: its usual limit, no probation header', async () => {
    at(0);
    const bot = await registerBot(t.app);
    for (let i = 0; i < 2; i++) assert.equal((await post(t.app, bot.api_key)).statusCode, 201);
    assert.equal((await post(t.app, bot.api_key)).statusCode, 429);

    const cookie = await signInAsCreator(t, `probation-${bot.bot.id.slice(0, 8)}`);
    const claimed = await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: bot.claim_code },
    });
    assert.equal(claimed.statusCode, 200, claimed.body);

    const admitted = await post(t.app, bot.api_key);
    assert.equal(admitted.statusCode, 201, admitted.body);
    assertLimitHeaders(admitted, 10, 7);
    assert.equal(admitted.headers['x-ratelimit-probation-until'], undefined);
    const { quota } = await ownBot(bot.api_key);
    assert.equal(quota.posts.limit, 10);
    assert.equal(quota.posts.probation_until, null);
    // Its level rose from 0 (probation) to 1, and it hears so, as of any change of level.
    const told = (await inbox(t.app, bot.api_key)).items.filter((item) => item.kind === 'trust');
    assert.deepEqual(
      told.map((item) => item.trust),
      [{ level: 1, name: 'member', previous: 0 }],
    );
  });

  test('probation ends with its hours; a refusal waits no longer than its end', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const until = new Date(await probationEnd(bot.bot.id));
    const beforeTheEnd = (minutes: number) => at(until.getTime() - start.getTime() - minutes * 60_000);
    beforeTheEnd(30);
    for (let i = 0; i < 2; i++) assert.equal((await post(t.app, bot.api_key)).statusCode, 201);

    // Ten minutes before the end: the window would hold the bot's posts for 20 minutes more.
    beforeTheEnd(10);
    const refused = await post(t.app, bot.api_key);
    assert.equal(refused.statusCode, 429, refused.body);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 9 * 60 && retryAfter <= 10 * 60, `Retry-After ${retryAfter}`);
    assert.ok((await ownBot(bot.api_key)).quota.posts.retry_after_seconds <= 10 * 60);

    at(until.getTime() - start.getTime() + 1000);
    const admitted = await post(t.app, bot.api_key);
    assert.equal(admitted.statusCode, 201, admitted.body);
    assert.equal(admitted.headers['x-ratelimit-limit'], '10');
    assert.equal(admitted.headers['x-ratelimit-probation-until'], undefined);
    assert.equal((await ownBot(bot.api_key)).quota.posts.probation_until, null);
  });

  test("a failed write's peek at the counts finds the admission's limit; a lower usual limit holds", async () => {
    at(0);
    const bot = await registerBot(t.app);
    // The limits by level as the hook computes them (bot-limits.ts), trust levels on.
    const ask = (max: number) => ({
      keyHash: hashSecret(bot.api_key),
      limits: {
        perIp: { key: 'posts-per-ip:test', max: 100 },
        action: 'posts',
        levels: [Math.floor(max / 2), max, max * 2, max * 3, Math.min(2, max)] as const,
        windowMs: 3_600_000,
        now: clock(),
        probationHours: hours,
        trust: true,
      },
      scope: null,
      idempotency: null,
    });
    // The peek at the counts (a failed write's answer) finds the limit the admission would.
    const inProbation = await peekBotAdmission(t.db, ask(10));
    assert.equal(inProbation?.ownMax, 2);
    assert.equal(inProbation?.probationUntil?.toISOString(), await probationEnd(bot.bot.id));
    // Where the usual limit is the lower, it binds, and probation says nothing.
    const usualLower = await peekBotAdmission(t.db, ask(1));
    assert.equal(usualLower?.ownMax, 1);
    assert.equal(usualLower?.probationUntil, null);
  });

  test('a request that fails before its write is counted against the probation limit, and says so', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'gossip', title: 't', body: 'b' },
    });
    assert.equal(invalid.statusCode, 400, invalid.body);
    assertContract('createPost', invalid);
    assertLimitHeaders(invalid, 2, 1);
    assert.equal(invalid.headers['x-ratelimit-probation-until'], await probationEnd(bot.bot.id));
  });

  test('an Idempotency-Key retry replays, even over a probation limit its bot came under later', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const cookie = await signInAsCreator(t, `replay-${bot.bot.id.slice(0, 8)}`);
    const claimed = await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: bot.claim_code },
    });
    assert.equal(claimed.statusCode, 200, claimed.body);
    const keyed = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/feed/posts',
        headers: { ...bearer(bot.api_key), 'idempotency-key': key },
        payload: { category: 'results', title: 't', body: `keyed ${key}` },
      });
    for (const key of ['k1', 'k2', 'k3']) assert.equal((await keyed(key)).statusCode, 201);
    // Its creator's account deleted (creator_user_id is set null), the young bot is unclaimed again:
    // three posts this hour, over probation's two.
    await t.db.updateTable('bots').set({ creator_user_id: null }).where('id', '=', bot.bot.id).execute();

    const replayed = await keyed('k3');
    assert.equal(replayed.statusCode, 201, replayed.body);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assertLimitHeaders(replayed, 2, 0);
    assert.equal(replayed.headers['x-ratelimit-probation-until'], await probationEnd(bot.bot.id));
    const fresh = await keyed('k4');
    assert.equal(fresh.statusCode, 429, fresh.body);
  });
});

describe('probation off', () => {
  test('is the default: the published limits hold for every new bot', () => {
    const config = loadConfig({});
    assert.equal(config.probation.hours, 0);
    assert.deepEqual(config.probation.limits, { posts: 2, comments: 10, votes: 30 });
  });
});
