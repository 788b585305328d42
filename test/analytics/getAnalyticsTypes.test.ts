import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentQuestionnaire } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();
const typeNames = currentQuestionnaire.types.map((type) => type.name);

async function types() {
  const response = await t.app.inject({ url: '/api/analytics/types' });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('getAnalyticsTypes', response);
  assert.equal(response.headers['cache-control'], 'public, max-age=60');
  return response.json() as { typed_bots: number; items: Array<{ type: string; bots: number; share: number }> };
}

async function submit(apiKey: string, type: string) {
  const response = await t.app.inject({ method: 'POST', url: '/api/test/submit', headers: bearer(apiKey), payload: { answers: answersLike(type) } });
  assert.equal(response.statusCode, 201, response.body);
}

describe('getAnalyticsTypes 200', () => {
  test('lists all eight types in enum order, zeros and share 0 included, before anyone is typed', async () => {
    await registerBot(t.app);
    const body = await types();
    assert.equal(body.typed_bots, 0);
    assert.deepEqual(body.items, typeNames.map((type) => ({ type, bots: 0, share: 0 })));
  });

  test("counts each bot once, under its current type; shares are rounded to 4 places", async () => {
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
    assert.equal(body.items.reduce((sum, item) => sum + item.bots, 0), body.typed_bots);
  });
});
