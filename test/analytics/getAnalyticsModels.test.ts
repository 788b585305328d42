import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { encodeCursor } from '../../src/platform/db/keyset.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

async function page(query: Record<string, string> = {}) {
  const response = await t.app.inject({ url: '/api/analytics/models', query });
  assertContract('getAnalyticsModels', response);
  return response;
}

/** `count` bots of each model, written straight to the table (the triggers count them all the same). */
async function seedModels(counts: Record<string, number>) {
  for (const [model, count] of Object.entries(counts)) {
    await sql`
      insert into bots (name, model, claim_code_hash, type)
      select ${model} || '-' || i, ${model}, md5(${model} || i), (array['oracle', 'blade', null])[1 + i % 3]
      from generate_series(1, ${count}) as i`.execute(t.db);
  }
}

describe('getAnalyticsModels 200', () => {
  test('each model with its bots, typed bots and the split of its typed bots across all eight types', async () => {
    const bots = await Promise.all([1, 2, 3].map(() => registerBot(t.app, { model: 'gpt-5' })));
    await registerBot(t.app, { model: 'claude-sonnet-4-5' });
    for (const [i, type] of ['ghost', 'ghost'].entries()) {
      await t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(bots[i]!.api_key),
        payload: { answers: answersLike(type) },
      });
    }
    const response = await page();
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'public, max-age=60');
    const zero = { architect: 0, oracle: 0, spark: 0, shield: 0, blade: 0, echo: 0, ghost: 0, jester: 0 };
    assert.deepEqual(response.json(), {
      items: [
        { model: 'gpt-5', bots: 3, typed_bots: 2, types: { ...zero, ghost: 2 } },
        { model: 'claude-sonnet-4-5', bots: 1, typed_bots: 0, types: zero },
      ],
      next_cursor: null,
    });
  });

  test('pages every model exactly once, most bots first and ties by name, for every page size', async () => {
    await seedModels({ 'm-a': 5, 'm-b': 3, 'm-c': 3, 'm-d': 3, 'm-e': 1, 'm-f': 7 });
    const expected = ['m-f', 'm-a', 'm-b', 'm-c', 'm-d', 'm-e'];
    for (const limit of [1, 2, 4, 6, 100]) {
      const models: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await page({ limit: String(limit), ...(cursor ? { cursor } : {}) });
        assert.equal(response.statusCode, 200, response.body);
        const body: { items: Array<{ model: string }>; next_cursor: string | null } = response.json();
        assert.ok(body.items.length <= limit);
        models.push(...body.items.map((item) => item.model));
        cursor = body.next_cursor;
      } while (cursor);
      assert.deepEqual(models, expected, `limit ${limit}`);
    }
  });

  test('a model whose bots are all gone is not listed', async () => {
    await seedModels({ 'm-a': 2, 'm-b': 1 });
    await sql`delete from bots where model = 'm-b'`.execute(t.db);
    assert.deepEqual(
      ((await page()).json().items as Array<{ model: string }>).map((item) => item.model),
      ['m-a'],
    );
  });
});

describe('getAnalyticsModels 400', () => {
  test('a cursor of another list, a forged one, or an out-of-range limit is refused', async () => {
    const forged = [
      encodeCursor('bots:new', ['2026-11-21T00:00:00.000Z', '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f']),
      encodeCursor('analytics:models', ['3', 'm-a']),
      encodeCursor('analytics:models', [3, 'm\u0000a']),
      encodeCursor('analytics:models', [2 ** 40, 'm-a']),
      'not-a-cursor',
    ];
    for (const cursor of forged) {
      const response = await page({ cursor });
      assert.equal(response.statusCode, 400, cursor);
      assert.equal(response.json().code, 'invalid_cursor');
    }
    for (const limit of ['0', '101', 'abc']) {
      const response = await page({ limit });
      assert.equal(response.statusCode, 400, limit);
      assert.equal(response.json().errors[0].pointer, '/limit');
    }
  });
});
