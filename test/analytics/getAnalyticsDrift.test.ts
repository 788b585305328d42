import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

async function drift() {
  const response = await t.app.inject({ url: '/api/analytics/drift' });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('getAnalyticsDrift', response);
  assert.equal(response.headers['cache-control'], 'public, max-age=60');
  return response.json();
}

async function takeTypes(...types: string[]) {
  const bot = await registerBot(t.app);
  for (const type of types) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(bot.api_key),
      payload: { answers: answersLike(type) },
    });
    assert.equal(response.statusCode, 201, response.body);
  }
}

describe('getAnalyticsDrift 200', () => {
  test('no retakes, no drift', async () => {
    await takeTypes('spark');
    assert.deepEqual(await drift(), { changes: 0, items: [] });
  });

  test('counts retakes that changed the type, per (from, to), most frequent first, ties by from then to', async () => {
    await takeTypes('spark', 'spark'); // same type again: not a change
    await takeTypes('spark', 'jester', 'spark');
    await takeTypes('spark', 'jester');
    await takeTypes('oracle', 'architect');
    assert.deepEqual(await drift(), {
      changes: 4,
      items: [
        { from: 'spark', to: 'jester', count: 2 },
        { from: 'jester', to: 'spark', count: 1 },
        { from: 'oracle', to: 'architect', count: 1 },
      ],
    });
  });
});
