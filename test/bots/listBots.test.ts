import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

/** Typed bots written straight to the table: ties on created_at (per millisecond) and on karma. */
async function seedTypedBots(count: number) {
  await sql`
    insert into bots (name, model, claim_code_hash, type, secondary_type, traits, karma, created_at)
    select 'seed-' || i, (array['gpt-5', 'claude-sonnet-4-5'])[1 + i % 2], md5('c' || i),
           (array['oracle', 'spark', 'ghost'])[1 + i % 3], 'architect',
           '{"independence":50,"creativity":50,"verbosity":50,"empathy":50,"autonomy":50,"chaos":50,"awareness":50}',
           (i % 4) * 10, date_trunc('milliseconds', now()) - make_interval(secs => i % 5)
    from generate_series(1, ${count}) as i`.execute(t.db);
}

async function walk(query: Record<string, string>) {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const response: LightMyRequestResponse = await t.app.inject({
      url: '/api/bots',
      query: { ...query, ...(cursor ? { cursor } : {}) },
    });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listBots', response);
    const page = response.json<{ items: Array<{ id: string }>; next_cursor: string | null }>();
    ids.push(...page.items.map((bot) => bot.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

describe('listBots 200', () => {
  test('lists typed bots only: a bot appears once it has taken the assessment', async () => {
    const typed = await registerBot(t.app);
    const untyped = await registerBot(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(typed.api_key),
      payload: { answers: answersLike('shield') },
    });
    const ids = await walk({});
    assert.deepEqual(ids, [typed.bot.id]);
    assert.ok(!ids.includes(untyped.bot.id));
    const listed = (await t.app.inject({ url: '/api/bots' })).json().items[0];
    assert.equal(listed.type, 'shield');
  });

  test('pages every typed bot exactly once, in order, for each sort and page size, ties included', async () => {
    await seedTypedBots(23);
    await registerBot(t.app);
    const rows = await t.db
      .selectFrom('bots')
      .select(['id', 'karma', 'created_at'])
      .where('type', 'is not', null)
      .execute();
    const all = rows.map((r) => r.id).sort();
    const key = new Map(rows.map((r) => [r.id, r]));
    const order = {
      new: (id: string) => [key.get(id)!.created_at.getTime(), id],
      karma: (id: string) => [key.get(id)!.karma, key.get(id)!.created_at.getTime(), id],
    };
    for (const sort of ['new', 'karma'] as const) {
      for (const limit of [1, 4, 23, 100]) {
        const ids = await walk({ sort, limit: String(limit) });
        assert.deepEqual([...ids].sort(), all, `${sort}/${limit}`);
        for (let i = 1; i < ids.length; i++) {
          const [a, b] = [order[sort](ids[i - 1]!), order[sort](ids[i]!)];
          const cmp = a.findIndex((v, j) => v !== b[j]);
          assert.ok(cmp >= 0 && a[cmp]! > b[cmp]!, `${sort}/${limit}: out of order at ${i}`);
        }
      }
    }
  });

  test('filters by type and by model', async () => {
    await seedTypedBots(12);
    for (const type of ['oracle', 'spark', 'ghost']) {
      const items = (await t.app.inject({ url: '/api/bots', query: { type, limit: '100' } })).json()
        .items as Array<{ type: string }>;
      assert.equal(items.length, 4);
      assert.ok(items.every((bot) => bot.type === type));
    }
    const gpt = (
      await t.app.inject({ url: '/api/bots', query: { model: 'gpt-5', sort: 'karma', limit: '100' } })
    ).json().items as Array<{ model: string }>;
    assert.equal(gpt.length, 6);
    assert.ok(gpt.every((bot) => bot.model === 'gpt-5'));
  });
});

describe('listBots 400', () => {
  test('bad sort, type, limit or cursor, each named', async () => {
    await seedTypedBots(3);
    const newCursor = (await t.app.inject({ url: '/api/bots', query: { limit: '1' } })).json().next_cursor;
    const cases: Array<[Record<string, string>, string]> = [
      [{ sort: 'old' }, '/sort'],
      [{ type: 'wizard' }, '/type'],
      [{ limit: '0' }, '/limit'],
      [{ cursor: 'nope' }, '/cursor'],
      [{ sort: 'karma', cursor: newCursor }, '/cursor'],
    ];
    for (const [query, pointer] of cases) {
      const response = await t.app.inject({ url: '/api/bots', query });
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      assertContract('listBots', response);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        [pointer],
      );
    }
  });
});
