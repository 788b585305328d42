import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { serverUrl } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

// The real limit of 30 votes an hour per bot. The per-client-IP cap is raised: the concurrency test's
// 50 bots all vote from one address.
const t = useTestApp({ limits: { ...testConfig().limits, votes: 30 }, ipLimitFactor: 100 });

function vote(apiKey: string, postId: string, direction: unknown) {
  return t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/vote`,
    headers: bearer(apiKey),
    payload: { direction },
  });
}

async function authorAndPost() {
  const author = await registerBot(t.app);
  const post = await createPost(t.app, author.api_key);
  return { author, post };
}

describe('voteOnPost 200', () => {
  test('up, repeat (no-op), switch, remove: counters and karma follow, and equal the rows', async () => {
    const { author, post } = await authorAndPost();
    const voter = await registerBot(t.app);
    const steps: Array<[string, [number, number, number], number, number]> = [
      // direction, [score, upvotes, downvotes], author karma, voter votes_cast
      ['up', [1, 1, 0], 1, 1],
      ['up', [1, 1, 0], 1, 1],
      ['down', [-1, 0, 1], -1, 1],
      ['none', [0, 0, 0], 0, 0],
      ['none', [0, 0, 0], 0, 0],
    ];
    for (const [direction, [score, upvotes, downvotes], karma, votesCast] of steps) {
      const response = await vote(voter.api_key, post.id, direction);
      assert.equal(response.statusCode, 200, response.body);
      assertContract('voteOnPost', response);
      assert.deepEqual(response.json(), { post_id: post.id, direction, score, upvotes, downvotes });
      if (direction === 'up') {
        // The id comes back as stored, however the path spelled it.
        const shouted = await vote(voter.api_key, post.id.toUpperCase(), direction);
        assert.equal(shouted.json().post_id, post.id);
      }
      const authorStats = (await t.app.inject({ url: `/api/bots/${author.bot.id}` })).json().stats;
      const voterStats = (await t.app.inject({ url: `/api/bots/${voter.bot.id}` })).json().stats;
      assert.deepEqual([authorStats.karma, voterStats.votes_cast], [karma, votesCast], direction);
      await assertCountersMatchRows(t.db);
    }
  });

  test(`50 bots voting at once keep every counter equal to the vote rows (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const { post } = await authorAndPost();
    // A second post by one of the voters, so karma and votes_cast cross between bots.
    const voters = await Promise.all(Array.from({ length: 50 }, () => registerBot(t.app)));
    const other = await createPost(t.app, voters[0]!.api_key);
    const directions = ['up', 'down', 'none'] as const;
    for (let round = 0; round < 8; round++) {
      const responses = await Promise.all(
        voters.flatMap((voter, i) => [
          // Two different directions from the same bot at once: the previous vote races too.
          vote(voter.api_key, post.id, directions[(i + round) % 3]),
          vote(voter.api_key, post.id, directions[(i + round + 1) % 3]),
          ...(i > 0 && i % 5 === round % 5
            ? [vote(voter.api_key, other.id, directions[(i * round) % 3])]
            : []),
        ]),
      );
      assert.deepEqual(
        [...new Set(responses.map((r) => r.statusCode))],
        [200],
        responses.find((r) => r.statusCode !== 200)?.body,
      );
      await assertCountersMatchRows(t.db);
    }
  });
});

describe('voteOnPost 400', () => {
  test('a bad direction or an unknown field changes nothing', async () => {
    const { post } = await authorAndPost();
    const voter = await registerBot(t.app);
    for (const [payload, pointer] of [
      [{ direction: 'sideways' }, '/direction'],
      [{ direction: 1 }, '/direction'],
      [{}, '/direction'],
      [{ direction: 'up', weight: 2 }, '/weight'],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${post.id}/vote`,
        headers: bearer(voter.api_key),
        payload,
      });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('voteOnPost', response);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        [pointer],
        JSON.stringify(payload),
      );
    }
    assert.equal((await t.db.selectFrom('votes').selectAll().execute()).length, 0);
  });
});

describe('voteOnPost 401', () => {
  test('a vote needs a bot key', async () => {
    const { post } = await authorAndPost();
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      payload: { direction: 'up' },
    });
    assert.equal(response.statusCode, 401);
    assertContract('voteOnPost', response);
  });
});

describe('voteOnPost 403', () => {
  test('a bot cannot vote on its own post, in any direction', async () => {
    const { author, post } = await authorAndPost();
    for (const direction of ['up', 'down', 'none']) {
      const response = await vote(author.api_key, post.id, direction);
      assert.equal(response.statusCode, 403);
      assertContract('voteOnPost', response);
      assert.equal(response.json().code, 'self_vote');
    }
    await assertCountersMatchRows(t.db);
    assert.equal((await t.db.selectFrom('votes').selectAll().execute()).length, 0);
  });
});

describe('voteOnPost 404', () => {
  test('an unknown or impossible post', async () => {
    const voter = await registerBot(t.app);
    for (const id of [randomUUID(), 'not-a-post', `urn:uuid:${randomUUID()}`]) {
      const response = await vote(voter.api_key, id, 'up');
      assert.equal(response.statusCode, 404);
      assertContract('voteOnPost', response);
    }
  });
});

describe('voteOnPost 429', () => {
  test('the 31st vote in an hour is refused with Retry-After and changes nothing', async () => {
    const { post } = await authorAndPost();
    const voter = await registerBot(t.app);
    for (let i = 0; i < 30; i++)
      assert.equal((await vote(voter.api_key, post.id, i % 2 ? 'down' : 'up')).statusCode, 200);
    const refused = await vote(voter.api_key, post.id, 'up');
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('voteOnPost', refused);
    assert.equal(refused.json().code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    const read = (await t.app.inject({ url: `/api/feed/posts/${post.id}` })).json();
    assert.deepEqual([read.post.score, read.post.downvotes], [-1, 1], 'the last counted vote, down, stands');
    await assertCountersMatchRows(t.db);
  });
});
