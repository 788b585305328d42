import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentBotQuestionnaire } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();
const typeNames = currentBotQuestionnaire.types.map((type) => type.name);

async function types() {
  const response = await t.app.inject({ url: '/api/analytics/types' });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('getAnalyticsTypes', response);
  assert.equal(response.headers['cache-control'], 'public, max-age=60');
  return response.json<{
    typed_bots: number;
    items: Array<{
      type: string;
      bots: number;
      share: number;
      accuracy: { ratings: number; mean_rating: number | null };
    }>;
  }>();
}

async function submit(apiKey: string, type: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/test/submit',
    headers: bearer(apiKey),
    payload: { answers: answersLike(type) },
  });
  assert.equal(response.statusCode, 201, response.body);
}

describe('getAnalyticsTypes 200', () => {
  test('lists all eight types in enum order, zeros and share 0 included, before anyone is typed', async () => {
    await registerBot(t.app);
    const body = await types();
    assert.equal(body.typed_bots, 0);
    assert.deepEqual(
      body.items,
      typeNames.map((type) => ({ type, bots: 0, share: 0, accuracy: { ratings: 0, mean_rating: null } })),
    );
  });

  test('counts each bot once, under its current type; shares are rounded to 4 places', async () => {
    const bots = await Promise.all([1, 2, 3].map(() => registerBot(t.app)));
    await submit(bots[0]!.api_key, 'oracle');
    await submit(bots[1]!.api_key, 'oracle');
    await submit(bots[2]!.api_key, 'spark');
    await submit(bots[1]!.api_key, 'jester'); // a retake moves the bot, it does not add one
    const body = await types();
    assert.equal(body.typed_bots, 3);
    const byType = Object.fromEntries(body.items.map((item) => [item.type, [item.bots, item.share]]));
    assert.deepEqual(byType.oracle, [1, 0.3333]);
    assert.deepEqual(byType.spark, [1, 0.3333]);
    assert.deepEqual(byType.jester, [1, 0.3333]);
    assert.deepEqual(byType.architect, [0, 0]);
    assert.equal(
      body.items.reduce((sum, item) => sum + item.bots, 0),
      body.typed_bots,
    );
  });

  test("averages the bots' ratings of every rated result of a type, to 2 places; a re-rating replaces", async () => {
    const rate = (apiKey: string, rating: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/bots/me/rate-accuracy',
        headers: bearer(apiKey),
        payload: { rating },
      });
    const bots = await Promise.all([1, 2, 3, 4].map(() => registerBot(t.app)));
    for (const bot of bots.slice(0, 3)) await submit(bot.api_key, 'oracle');
    await submit(bots[3]!.api_key, 'ghost');
    await rate(bots[0]!.api_key, 5);
    await rate(bots[1]!.api_key, 2);
    await rate(bots[1]!.api_key, 4); // replaces the 2
    await rate(bots[2]!.api_key, 4);
    const byType = Object.fromEntries((await types()).items.map((item) => [item.type, item.accuracy]));
    assert.deepEqual(byType.oracle, { ratings: 3, mean_rating: 4.33 });
    assert.deepEqual(byType.ghost, { ratings: 0, mean_rating: null });
    // A retake to another type leaves the rated oracle result rated: ratings belong to results.
    await submit(bots[0]!.api_key, 'ghost');
    await rate(bots[0]!.api_key, 1);
    const after = Object.fromEntries((await types()).items.map((item) => [item.type, item.accuracy]));
    assert.deepEqual(
      [after.oracle, after.ghost],
      [
        { ratings: 3, mean_rating: 4.33 },
        { ratings: 1, mean_rating: 1 },
      ],
    );
  });
});
