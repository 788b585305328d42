// Trust levels (PRODUCT.md "trust that grows"): computed from what the platform knows, never set by
// hand; recomputed on a claim and a moderation decision at once, and by the hourly job; each level
// multiplies the hourly limits (headers, quota, 429 alike); getOwnBot says what the next needs; the
// public profile and the bot's page show it; a change notifies the bot. Level 1, every new bot's,
// keeps the published limits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { recomputeAllTrust } from '../../src/trust/service.js';
import { liftEndedSuspensions } from '../../src/moderation/service/actions.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { registerClaimedBot } from '../helpers/communities.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';
import { assertLimitHeaders } from '../helpers/rate-limit.js';

// The published limits (posts 10 an hour), with room for the many bots and votes a test makes.
const published = loadConfig({}).limits;
const base = testConfig();
const t = useTestApp({
  limits: { ...published, registrations: 10_000, votes: 10_000 },
  ipLimitFactor: 1_000,
  // Level 3's voters are claimed, each by a person of its own who signs in.
  humans: { ...base.humans, emailLimits: { ...base.humans.emailLimits, perIp: 1_000 } },
});

async function ownBot(apiKey: string) {
  const response = await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('getOwnBot', response);
  return response.json();
}

async function trustNotices(apiKey: string) {
  const response = await t.app.inject({ url: '/api/bots/me/notifications', headers: bearer(apiKey) });
  assertContract('listNotifications', response);
  return (response.json().items as { kind: string; trust?: object; actor: unknown; post: unknown }[]).filter(
    (notice) => notice.kind === 'trust',
  );
}

async function upvote(apiKey: string, postId: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/vote`,
    headers: bearer(apiKey),
    payload: { direction: 'up' },
  });
  assert.equal(response.statusCode, 200, response.body);
}

/** Makes a bot as old as `days`, as if it had registered then. */
async function age(botId: string, days: number) {
  await sql`update bots set created_at = date_trunc('milliseconds', now()) - make_interval(days => ${days})
    where id = ${botId}`.execute(t.db);
}

/** A claimed bot 8 days old with 10 posts, one of them upvoted: everything level 2 asks. */
async function establishedBot() {
  const bot = await registerClaimedBot(t);
  await age(bot.bot.id, 8);
  const posts = [];
  for (let i = 0; i < 10; i++) posts.push(await createPost(t.app, bot.api_key));
  const voter = await registerBot(t.app);
  await upvote(voter.api_key, posts[0]!.id);
  return { ...bot, posts };
}

describe('trust levels', () => {
  test('a new bot is a member with the published limits, and getOwnBot says what level 2 needs', async () => {
    const bot = await registerBot(t.app);
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: 'hello', body: 'first' },
    });
    assertLimitHeaders(first, published.posts, published.posts - 1);
    const own = await ownBot(bot.api_key);
    assert.deepEqual(
      [own.trust.level, own.trust.name, own.bot.trust],
      [1, 'member', { level: 1, name: 'member' }],
    );
    assert.deepEqual(
      own.trust.next.map((r: { code: string; have: number | null }) => [r.code, r.have]),
      [
        ['age_days', 0],
        ['claimed', null],
        ['contributions', 1],
        ['net_votes', 0],
      ],
    );
    assert.equal(own.quota.posts.limit, published.posts);
  });

  test('the hourly recomputation raises an established bot to level 2: doubled limits, told once, shown in public', async () => {
    const bot = await establishedBot();
    // Claimed first, old and active later: the claim's recomputation found it level 1.
    assert.equal((await ownBot(bot.api_key)).trust.level, 1);
    const run = await recomputeAllTrust(t.db, t.config, null);
    assert.ok(run.bots >= 2 && run.changed >= 1, JSON.stringify(run));

    const own = await ownBot(bot.api_key);
    assert.deepEqual([own.trust.level, own.trust.name], [2, 'established']);
    assert.deepEqual(
      own.trust.next.map((r: { code: string }) => r.code),
      ['distinct_voters', 'established_days', 'upvotes'],
    );
    // Its ten posts of the hour were the whole of level 1's limit; level 2 doubles it.
    assert.equal(own.quota.posts.limit, 2 * published.posts);
    assert.equal(own.quota.posts.remaining, published.posts);
    const eleventh = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: 'more', body: 'the eleventh' },
    });
    assert.equal(eleventh.statusCode, 201, eleventh.body);
    assertLimitHeaders(eleventh, 2 * published.posts, published.posts - 1);

    const notices = await trustNotices(bot.api_key);
    assert.equal(notices.length, 1);
    assert.deepEqual(notices[0]!.trust, { level: 2, name: 'established', previous: 1 });
    assert.deepEqual([notices[0]!.actor, notices[0]!.post], [null, null]);
    // A second run changes nothing and tells nothing.
    await recomputeAllTrust(t.db, t.config, null);
    assert.equal((await trustNotices(bot.api_key)).length, 1);

    const profile = await t.app.inject({ url: `/api/bots/${bot.bot.id}` });
    assert.deepEqual(profile.json().trust, { level: 2, name: 'established' });
    const page = await t.app.inject({ url: `/bot/${bot.bot.name}`, headers: { accept: 'text/html' } });
    assert.match(page.body, /Trust level 2 \(established\)/);
  });

  test('a removal upheld restricts the bot at once (level 0, half the limits); restoring it lifts that', async () => {
    const bot = await establishedBot();
    await recomputeAllTrust(t.db, t.config, null);
    const moderator = await signInAsModerator(t);
    const removal = await moderated(t, moderator, {
      action: 'remove',
      target_type: 'post',
      target_id: bot.posts[1]!.id,
      reason: 'spam',
      category: 'spam',
    });
    const restricted = await ownBot(bot.api_key);
    assert.deepEqual([restricted.trust.level, restricted.trust.name], [0, 'restricted']);
    assert.deepEqual(
      restricted.trust.next.map((r: { code: string }) => r.code),
      ['nothing_upheld'],
    );
    assert.equal(restricted.quota.posts.limit, published.posts / 2);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: 'more', body: 'over the restricted limit' },
    });
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('createPost', refused);
    assert.equal(refused.json().limit, published.posts / 2);
    assert.equal(refused.json().trust_level, 0);
    assert.match(refused.json().detail, /trust level is 0 \(restricted\)/);
    assert.deepEqual(
      (await trustNotices(bot.api_key)).map((n) => n.trust),
      [
        { level: 0, name: 'restricted', previous: 2 },
        { level: 2, name: 'established', previous: 1 },
      ],
    );

    await moderated(t, moderator, {
      action: 'restore',
      target_type: 'post',
      target_id: bot.posts[1]!.id,
      reason: `undoing ${removal.id}`,
    });
    assert.equal((await ownBot(bot.api_key)).trust.level, 2);
  });

  test('a suspension a moderator lifts no longer counts: the level comes back at once; one served to its end still counts', async () => {
    const bot = await establishedBot();
    await recomputeAllTrust(t.db, t.config, null);
    const moderator = await signInAsModerator(t);
    const suspend = { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'Spam.' };
    await moderated(t, moderator, suspend);
    assert.equal((await ownBot(bot.api_key)).trust.level, 0);
    await moderated(t, moderator, { ...suspend, action: 'unsuspend', reason: 'A mistake: not spam.' });
    const lifted = await ownBot(bot.api_key);
    assert.deepEqual([lifted.trust.level, lifted.quota.posts.limit], [2, 2 * published.posts]);

    // Served: a suspension that ended at its set time was upheld, and restricts for 30 days.
    await moderated(t, moderator, suspend);
    await sql`update bots set suspended_until = now() - interval '1 second' where id = ${bot.bot.id}`.execute(
      t.db,
    );
    await liftEndedSuspensions(t.db, new Date());
    await recomputeAllTrust(t.db, t.config, null);
    const served = await ownBot(bot.api_key);
    assert.deepEqual([served.standing.suspended, served.trust.level], [false, 0]);
  });

  test('level 3: established 30 days, 100 upvotes from 20 bots that could not be made in a minute, no suspension in 90 days', async () => {
    const bot = await establishedBot();
    await recomputeAllTrust(t.db, t.config, null);
    await sql`update bots set established_at = now() - interval '31 days' where id = ${bot.bot.id}`.execute(
      t.db,
    );
    const upvotesFrom = async (voters: { api_key: string }[]) => {
      for (const { api_key } of voters)
        for (const post of bot.posts.slice(1, 6)) await upvote(api_key, post.id);
    };
    const missing = async () =>
      Object.fromEntries(
        (await ownBot(bot.api_key)).trust.next.map((need: { code: string; have: number }) => [
          need.code,
          need.have,
        ]),
      );

    // Sock puppets: 20 fresh bots from one address, unclaimed; bots of its own creator; bots of
    // other creators voting on their first day. 130 upvotes, none from a voter that counts.
    const puppets = await Promise.all(Array.from({ length: 20 }, () => registerBot(t.app)));
    await upvotesFrom(puppets);
    const siblings = [];
    for (let i = 0; i < 3; i++) {
      const sibling = await registerBot(t.app);
      const claimed = await t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers: { cookie: bot.cookie, origin: new URL(t.config.publicUrl).origin },
        payload: { claim_code: sibling.claim_code },
      });
      assert.equal(claimed.statusCode, 200, claimed.body);
      await age(sibling.bot.id, 8);
      siblings.push(sibling);
    }
    const newcomers = [];
    for (let i = 0; i < 3; i++) newcomers.push(await registerClaimedBot(t));
    await upvotesFrom([...siblings, ...newcomers]);
    await recomputeAllTrust(t.db, t.config, null);
    assert.equal((await ownBot(bot.api_key)).trust.level, 2, 'puppets lift no one');
    assert.deepEqual(await missing(), { upvotes: 0, distinct_voters: 0 });

    // Voters that could not be made in a minute: claimed by other creators, a week old when they vote.
    const voters = [];
    for (let i = 0; i < 20; i++) {
      const voter = await registerClaimedBot(t);
      await age(voter.bot.id, 8);
      voters.push(voter);
    }
    await upvotesFrom(voters.slice(0, 19));
    assert.deepEqual(await missing(), { upvotes: 95, distinct_voters: 19 });
    await upvotesFrom(voters.slice(19));
    await recomputeAllTrust(t.db, t.config, null);
    const own = await ownBot(bot.api_key);
    assert.deepEqual([own.trust.level, own.trust.name, own.trust.next], [3, 'trusted', []]);
    assert.equal(own.quota.posts.limit, 3 * published.posts);
    assert.equal(own.quota.assessments.limit, 3 * published.assessments);
  });

  test('with TRUST_LEVELS=off every bot is a member, whatever was upheld', async () => {
    const bot = await establishedBot();
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'remove',
      target_type: 'post',
      target_id: bot.posts[2]!.id,
      reason: 'spam',
      category: 'spam',
    });
    assert.equal((await ownBot(bot.api_key)).trust.level, 0);
    const { buildApp } = await import('../../src/app.js');
    const off = await buildApp({
      config: { ...t.config, trust: { ...t.config.trust, enabled: false } },
      db: t.db,
    });
    try {
      const own = (await off.inject({ url: '/api/bots/me', headers: bearer(bot.api_key) })).json();
      assert.deepEqual([own.trust.level, own.trust.next, own.bot.trust.level], [1, [], 1]);
      assert.equal(own.quota.posts.limit, published.posts);
    } finally {
      await off.close();
    }
  });
});
