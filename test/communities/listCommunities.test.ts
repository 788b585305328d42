// listCommunities: GET /api/communities (popular or new, searched by q, keyset-paged).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { communitiesQuery } from '../../src/communities/repository.js';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, registerClaimedBot } from '../helpers/communities.js';

const t = useTestApp();

describe('listCommunities 200', () => {
  test('popular by members, new by creation, every one once across pages; q finds by every word, in any order and case', async () => {
    const makers = await Promise.all([1, 2, 3].map(() => registerClaimedBot(t)));
    const word = `zebra${process.pid}`;
    const made = [];
    for (const [i, maker] of makers.entries())
      made.push(
        await createCommunity(t, maker.api_key, {
          title: `Space ${i}`,
          description: `About ${word} ${['alpha', 'beta', 'gamma'][i]}`,
        }),
      );
    const fans = await Promise.all([1, 2].map(() => registerBot(t.app)));
    for (const fan of fans) assert.equal((await join(t, fan.api_key, made[0]!.name)).statusCode, 204);
    assert.equal((await join(t, fans[0]!.api_key, made[1]!.name)).statusCode, 204);

    const popular = await t.app.inject({ url: `/api/communities?q=${word}` });
    assert.equal(popular.statusCode, 200, popular.body);
    assertContract('listCommunities', popular);
    assert.deepEqual(
      popular.json().items.map((c: { name: string }) => c.name),
      [made[0]!.name, made[1]!.name, made[2]!.name],
    );
    assert.equal(popular.json().items[0].members_count, 3);

    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { name: string }[]; next_cursor: string | null } = (
        await t.app.inject({
          url: `/api/communities?sort=new&limit=1&q=${word}${cursor ? `&cursor=${cursor}` : ''}`,
        })
      ).json();
      names.push(...page.items.map((c) => c.name));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(names, [made[2]!.name, made[1]!.name, made[0]!.name]);

    const one = await t.app.inject({ url: `/api/communities?q=${encodeURIComponent(`BETA ${word}`)}` });
    assert.deepEqual(
      one.json().items.map((c: { name: string }) => c.name),
      [made[1]!.name],
    );
    const prefix = await t.app.inject({ url: `/api/communities?q=${word.slice(0, 5).toUpperCase()}%20gam` });
    assert.deepEqual(
      prefix.json().items.map((c: { name: string }) => c.name),
      [made[2]!.name],
      'the beginning of a word finds it',
    );
    const repeated = await t.app.inject({
      url: `/api/communities?q=${encodeURIComponent(`${Array(5).fill(word).join(' ')} a b c beta`)}`,
    });
    assert.deepEqual(
      repeated.json().items.map((c: { name: string }) => c.name),
      [made[1]!.name],
      'a word counts once; words of one letter are left out',
    );
  });

  test('a search reads the index of the communities’ words, not every community', async () => {
    const query = communitiesQuery(t.db, {
      sort: 'popular',
      words: ['zebra', 'be'],
      limit: 21,
      after: undefined,
    });
    const { sql: text, parameters } = query.compile();
    const plan = await t.db.transaction().execute(async (trx) => {
      // Few rows in a test database: a scan would be cheaper, so scans are ruled out to ask whether
      // the index can answer the query's very expression.
      await sql`set local enable_seqscan = off`.execute(trx);
      const { rows } = await trx.executeQuery(
        CompiledQuery.raw(`explain (format json) ${text}`, [...parameters]),
      );
      return JSON.stringify(rows);
    });
    assert.match(plan, /communities_words/);
  });
});

describe('listCommunities 400 for q', () => {
  test('no word of two letters, or more than eight different words: the 400 says what to send', async () => {
    for (const [q, message] of [
      ['%', /needs a word of 2 or more letters or digits/],
      [
        Array.from('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwx').join(' '),
        /needs a word of 2 or more/,
      ],
      ['one two three four five six seven eight nine', /holds 9 different words; search with 8 at most/],
    ] as const) {
      const response = await t.app.inject({ url: `/api/communities?q=${encodeURIComponent(q)}` });
      assert.equal(response.statusCode, 400, response.body);
      assertContract('listCommunities', response);
      assert.equal(response.json().errors[0].pointer, '/q');
      assert.match(response.json().errors[0].message, message);
    }
    const page = await t.app.inject({ url: `/communities?q=${encodeURIComponent('% !')}` });
    assert.equal(page.statusCode, 400, 'the page says it too');
  });
});

describe('listCommunities 400', () => {
  test('an unknown sort', async () => {
    const response = await t.app.inject({ url: '/api/communities?sort=best' });
    assert.equal(response.statusCode, 400);
    assertContract('listCommunities', response);
  });
});
