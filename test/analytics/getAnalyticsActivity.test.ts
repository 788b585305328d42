import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

type Day = components['schemas']['Activity']['items'][number];

async function activity(query: Record<string, string> = {}) {
  const response = await t.app.inject({ url: '/api/analytics/activity', query });
  assertContract('getAnalyticsActivity', response);
  return response;
}

/** Today's UTC date by the database's clock, and the date `n` days before it. */
async function utcDate(daysAgo: number): Promise<string> {
  const { rows } = await sql<{
    date: string;
  }>`select to_char((now() at time zone 'UTC')::date - ${daysAgo}::int, 'YYYY-MM-DD') as date`.execute(t.db);
  return rows[0]!.date;
}

describe('getAnalyticsActivity 200', () => {
  test('the last 30 UTC days by default, oldest first, every day present and today last', async () => {
    const response = await activity();
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'public, max-age=60');
    const body: { days: number; items: Day[] } = response.json();
    assert.equal(body.days, 30);
    assert.equal(body.items.length, 30);
    assert.equal(body.items.at(-1)!.date, await utcDate(0));
    assert.equal(body.items[0]!.date, await utcDate(29));
    for (let i = 1; i < body.items.length; i++) {
      assert.equal(Date.parse(body.items[i]!.date) - Date.parse(body.items[i - 1]!.date), 86_400_000);
    }
    assert.ok(
      body.items.every(
        (day) => day.posts + day.comments + day.votes + day.registrations + day.assessments === 0,
      ),
    );
  });

  test('counts each row on its own UTC day; a removed vote leaves the day it was cast', async () => {
    const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
    const post = await createPost(t.app, a.api_key);
    await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(b.api_key),
      payload: { direction: 'up' },
    });
    // Backdated rows: a post three days ago (00:30 UTC) with a vote cast on it then, its counter to match.
    const { rows } = await sql<{ id: string }>`
      insert into posts (bot_id, category, title, body, upvotes, created_at)
      values (${a.bot.id}, 'results', 't', 'b', 1, ((now() at time zone 'UTC')::date - 3 + interval '30 minutes') at time zone 'UTC')
      returning id`.execute(t.db);
    const old = rows[0]!.id;
    await sql`insert into votes (post_id, bot_id, direction, created_at) values (${old}, ${b.bot.id}, 1, ((now() at time zone 'UTC')::date - 3 + interval '31 minutes') at time zone 'UTC')`.execute(
      t.db,
    );

    const days = async () =>
      ((await activity({ days: '7' })).json().items as Day[]).map(({ date, ...counts }) => ({
        date,
        ...counts,
      }));
    const empty = { posts: 0, comments: 0, votes: 0, registrations: 0, assessments: 0 };
    const expected = await Promise.all(
      [6, 5, 4, 3, 2, 1, 0].map(async (n) => ({ date: await utcDate(n), ...empty })),
    );
    expected[3] = { ...expected[3]!, posts: 1, votes: 1 };
    expected[6] = { ...expected[6]!, posts: 1, votes: 1, registrations: 2 };
    assert.deepEqual(await days(), expected);

    // Taking the old vote back today takes it off its own day, three days ago.
    const removed = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${old}/vote`,
      headers: bearer(b.api_key),
      payload: { direction: 'none' },
    });
    assert.equal(removed.statusCode, 200, removed.body);
    expected[3] = { ...expected[3], votes: 0 };
    assert.deepEqual(await days(), expected);
  });

  test('days=1 is today alone; days=365 reaches back a year', async () => {
    const one = (await activity({ days: '1' })).json();
    assert.deepEqual(
      one.items.map((day: Day) => day.date),
      [await utcDate(0)],
    );
    const year = (await activity({ days: '365' })).json();
    assert.equal(year.items.length, 365);
    assert.equal(year.items[0].date, await utcDate(364));
  });
});

describe('getAnalyticsActivity 400', () => {
  test('days outside 1..365, or not a whole number, is refused naming the parameter', async () => {
    for (const days of ['0', '366', '-1', '1.5', 'abc', '1e2', '']) {
      const response = await activity({ days });
      assert.equal(response.statusCode, 400, `days=${days}: ${response.body}`);
      assert.equal(response.json().errors[0].pointer, '/days');
    }
  });
});
