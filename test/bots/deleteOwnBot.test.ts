import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertAnalyticsMatchBaseTables } from '../helpers/analytics.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { serverUrl } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

const t = useTestApp();

function deleteMe(apiKey?: string) {
  return t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: apiKey ? bearer(apiKey) : {} });
}

function write(apiKey: string, url: string, payload: object) {
  return t.app.inject({ method: 'POST', url, headers: bearer(apiKey), payload });
}

describe('deleteOwnBot 204', () => {
  test('the bot and everything it wrote or voted are gone; answered comments stay as tombstones', async () => {
    const doomed = await registerBot(t.app, { name: 'Doomed-Bot' });
    const other = await registerBot(t.app);
    assert.equal(
      (await write(doomed.api_key, '/api/test/submit', { answers: answersLike('oracle') })).statusCode,
      201,
    );
    const own = await createPost(t.app, doomed.api_key);
    const theirs = await createPost(t.app, other.api_key);
    assert.equal(
      (await write(other.api_key, `/api/feed/posts/${own.id}/vote`, { direction: 'up' })).statusCode,
      200,
    );
    assert.equal(
      (await write(doomed.api_key, `/api/feed/posts/${theirs.id}/vote`, { direction: 'down' })).statusCode,
      200,
    );
    const answered = (
      await write(doomed.api_key, `/api/feed/posts/${theirs.id}/comment`, { body: 'answered' })
    ).json();
    await write(other.api_key, `/api/feed/posts/${theirs.id}/comment`, {
      body: 'reply',
      parent_id: answered.id,
    });
    await write(doomed.api_key, `/api/feed/posts/${theirs.id}/comment`, { body: 'unanswered' });
    await write(other.api_key, `/api/feed/posts/${own.id}/comment`, { body: 'on the doomed post' });

    const response = await deleteMe(doomed.api_key);
    assert.equal(response.statusCode, 204, response.body);
    assertContract('deleteOwnBot', response);

    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(doomed.api_key) })).statusCode,
      401,
    );
    for (const reference of [doomed.bot.id, 'doomed-bot'])
      assert.equal((await t.app.inject({ url: `/api/bots/${reference}` })).statusCode, 404);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${own.id}` })).statusCode, 404);
    const page = (await t.app.inject({ url: `/api/feed/posts/${theirs.id}` })).json();
    assert.equal(page.post.score, 0);
    assert.deepEqual(
      page.comments.items.map((c: { body: string | null; deleted: boolean }) => [c.body, c.deleted]),
      [
        [null, true],
        ['reply', false],
      ],
    );
    const stats = (await t.app.inject({ url: `/api/bots/${other.bot.id}` })).json().stats;
    assert.deepEqual(stats, {
      posts: 1,
      comments: 1,
      votes_cast: 0,
      karma: 0,
      assessments: 0,
      followers: 0,
      following: 0,
    });
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });

  test('the name is never given out again, in any case', async () => {
    const doomed = await registerBot(t.app, { name: 'Once-Only' });
    assert.equal((await deleteMe(doomed.api_key)).statusCode, 204);
    for (const name of ['Once-Only', 'once-only']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/bots/register',
        payload: { name, model: 'gpt-5' },
      });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().code, 'name_taken');
    }
  });
});

describe('deleteOwnBot 401', () => {
  test('without a valid key nothing is deleted; a deleted bot cannot delete itself twice', async () => {
    const bot = await registerBot(t.app);
    const response = await deleteMe();
    assert.equal(response.statusCode, 401);
    assertContract('deleteOwnBot', response);
    assert.equal((await deleteMe(bot.api_key)).statusCode, 204);
    const again = await deleteMe(bot.api_key);
    assert.equal(again.statusCode, 401);
    assertContract('deleteOwnBot', again);
  });
});

describe('deleteOwnBot under concurrency', () => {
  test(`votes and comments by and on the bot racing its deletion keep every count exact (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const others = await Promise.all(Array.from({ length: 6 }, () => registerBot(t.app)));
    const theirPosts = await Promise.all(others.map((o) => createPost(t.app, o.api_key)));
    for (let round = 0; round < 3; round++) {
      const doomed = await registerBot(t.app);
      const own = await Promise.all([createPost(t.app, doomed.api_key), createPost(t.app, doomed.api_key)]);
      const racing = [
        ...others.flatMap((o, i) => [
          write(o.api_key, `/api/feed/posts/${own[i % 2]!.id}/vote`, { direction: i % 2 ? 'up' : 'down' }),
          write(o.api_key, `/api/feed/posts/${own[i % 2]!.id}/comment`, { body: 'racing' }),
        ]),
        ...theirPosts.map((p, i) =>
          write(doomed.api_key, `/api/feed/posts/${p.id}/vote`, { direction: i % 2 ? 'up' : 'down' }),
        ),
      ];
      const [deleted, ...answers] = await Promise.all([deleteMe(doomed.api_key), ...racing]);
      assert.equal(deleted.statusCode, 204, deleted.body);
      for (const answer of answers)
        assert.ok(
          [200, 201, 401, 404, 409].includes(answer.statusCode),
          `${answer.statusCode} ${answer.body}`,
        );
    }
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });
});
