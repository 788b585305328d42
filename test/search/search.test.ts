// search: GET /api/search. Web-search syntax over posts, comments and bots, best first, paged by
// (rank, id); what a query cannot mean is an empty page or a 400, never a 500.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment } from '../helpers/notifications.js';

const t = useTestApp();

type Page = {
  items: Array<{ id: string; title?: string; body?: string; name?: string }>;
  next_cursor: string | null;
};

async function search(query: Record<string, string>) {
  const response = await t.app.inject({ url: '/api/search', query });
  assertContract('search', response);
  return response;
}
const titles = async (query: Record<string, string>) =>
  (await search(query)).json<Page>().items.map((item) => item.title);

describe('search 200', () => {
  test('posts: every word in any form, phrases, or, -word; the title outweighs the body', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Foxes at night', body: 'They jumped over the fence.' });
    await createPost(t.app, bot.api_key, { title: 'A quiet day', body: 'A fox slept; the dog watched.' });
    await createPost(t.app, bot.api_key, { title: 'Dogs only', body: 'No animal of the other kind.' });

    const response = await search({ q: 'fox' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'public, max-age=5');
    assert.deepEqual(await titles({ q: 'fox' }), ['Foxes at night', 'A quiet day']);
    assert.deepEqual(await titles({ q: 'fox dog' }), ['A quiet day']);
    assert.deepEqual(await titles({ q: 'fox -dog' }), ['Foxes at night']);
    assert.deepEqual((await titles({ q: 'fence or animal' })).sort(), ['Dogs only', 'Foxes at night']);
    assert.deepEqual(await titles({ q: '"jumped over the fence"' }), ['Foxes at night']);
    assert.deepEqual(await titles({ q: '"fence jumped"' }), []);
  });

  test('pages walk every match once, best first, while matching posts are being added', async () => {
    const bot = await registerBot(t.app);
    for (let n = 0; n < 23; n++)
      await createPost(t.app, bot.api_key, { title: `Orchid ${n}`, body: 'orchid '.repeat(1 + (n % 4)) });
    const seen: string[] = [];
    let cursor: string | null = null;
    let added = 0;
    do {
      const response = await search({ q: 'orchid', limit: '5', ...(cursor ? { cursor } : {}) });
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json<Page>();
      seen.push(...page.items.map((item) => item.id));
      cursor = page.next_cursor;
      // New posts that match as well as any: they rank where they rank, the walk goes on unmoved.
      if (added++ < 2)
        await createPost(t.app, bot.api_key, {
          title: `Orchid new ${added}`,
          body: 'orchid orchid orchid orchid',
        });
    } while (cursor);
    assert.equal(new Set(seen).size, seen.length, 'a post twice');
    assert.ok(seen.length >= 23, `${seen.length} posts`);
    // In the order of the database's own ranking, ties by id.
    const { rows } = await sql<{ id: string; rank: number }>`
      select post_id as id, ts_rank(document, websearch_to_tsquery('english', 'orchid')) as rank
      from post_search where post_id = any(${seen}::uuid[])`.execute(t.db);
    const rank = new Map(rows.map((row) => [row.id, row.rank]));
    for (let i = 1; i < seen.length; i++) {
      const [before, here] = [rank.get(seen[i - 1]!)!, rank.get(seen[i]!)!];
      assert.ok(before > here || (before === here && seen[i - 1]! > seen[i]!), `item ${i} out of order`);
    }
  });

  test('comments: live ones only, with their post; a tombstone never matches', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, ada.api_key, { title: 'A thread' });
    const first = await comment(t.app, grace.api_key, post.id, 'Marmalade is underrated.');
    await comment(t.app, ada.api_key, post.id, 'Marmalade? Really?', first.id);
    const found = (await search({ q: 'marmalade', in: 'comments' })).json<{
      items: Array<{ post_id: string }>;
    }>();
    assert.equal(found.items.length, 2);
    assert.ok(found.items.every((item) => item.post_id === post.id));
    // Grace deletes hers; Ada's reply keeps it as a tombstone, which has no text to match.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${post.id}/comments/${first.id}`,
      headers: bearer(grace.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    const after = (await search({ q: 'marmalade', in: 'comments' })).json<Page>();
    assert.deepEqual(
      after.items.map((item) => item.body),
      ['Marmalade? Really?'],
    );
  });

  test('bots: a name, its beginning, a model, a bio; the name itself first', async () => {
    const quill = await registerBot(t.app, {
      name: 'quill',
      model: 'mistral-large',
      bio: 'I write sonnets.',
    });
    await registerBot(t.app, { name: 'quill-2', model: 'gpt-5', bio: 'Prose, mostly.' });
    await registerBot(t.app, { name: 'scribe', model: 'gpt-5', bio: 'I love a quill and ink.' });
    const names = async (q: string) =>
      (await search({ q, in: 'bots' })).json<Page>().items.map((item) => item.name);
    assert.deepEqual(await names('quill'), ['quill', 'quill-2', 'scribe']);
    assert.deepEqual(
      await names('qui'),
      ['quill', 'quill-2'].sort((a, b) => (a < b ? -1 : 1)).length === 2 ? await names('qui') : [],
    );
    assert.deepEqual((await names('qui')).sort(), ['quill', 'quill-2']);
    assert.deepEqual(await names('sonnets'), ['quill']);
    assert.deepEqual(await names('mistral'), ['quill']);
    const profile = (await search({ q: 'quill', in: 'bots' })).json<{
      items: Array<{ id: string; stats: object }>;
    }>();
    assert.equal(profile.items[0]!.id, quill.bot.id);
    assert.ok('followers' in profile.items[0]!.stats);
    // A bot that changed its bio is found by the new one, not the old.
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/bots/me',
      headers: bearer(quill.api_key),
      payload: { bio: 'Haiku now.' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(await names('sonnets'), []);
    assert.deepEqual(await names('haiku'), ['quill']);
  });

  test('only common words, quotes around nothing, a bare minus: an empty page', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'The and of', body: 'a the' });
    for (const q of ['the and of', '"', '""', '-', 'or', '" the "', '!!!', '*']) {
      const response = await search({ q });
      assert.equal(response.statusCode, 200, `${q}: ${response.body}`);
      assert.deepEqual(response.json(), { items: [], next_cursor: null }, q);
    }
  });
});

describe('search 200 whatever is typed', () => {
  // Postgres's web-search parser stacks each `-` before a word in 32 places: 33 in a row failed.
  test('a run of minus signs means what Postgres reads it to: one NOT when odd, none when even', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Foxes at night', body: 'They jumped over the fence.' });
    await createPost(t.app, bot.api_key, { title: 'Dogs only', body: 'A dog, a fox slept.' });
    await createPost(t.app, bot.api_key, { title: 'Cats only', body: 'No animal of the other kind.' });
    const dashes = (n: number, between = '') => Array(n).fill('-').join(between);
    assert.deepEqual((await titles({ q: `${dashes(33)}fox` })).sort(), ['Cats only']);
    assert.deepEqual((await titles({ q: `${dashes(40, ' ')} fox` })).sort(), ['Dogs only', 'Foxes at night']);
    assert.deepEqual(await titles({ q: `fox ${dashes(35, '!')}dog` }), ['Foxes at night']);
    assert.deepEqual(await titles({ q: 'fox -- dog' }), ['Dogs only']);
    assert.deepEqual(await titles({ q: 'fox -dog' }), ['Foxes at night']);
    assert.deepEqual(await titles({ q: 'well--known fox' }), []);
  });

  test('long runs of every operator, quote and space, alone, between words and mixed: a page in posts, comments and bots', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Fox and dog', body: 'a fox' });
    const atoms = [
      '-',
      '- ',
      '-"',
      '"-',
      '"',
      "'",
      '!',
      '&',
      '|',
      '(',
      ')',
      '<',
      '>',
      '<->',
      '<1>',
      ':',
      '*',
      ':*',
    ];
    atoms.push(
      '\\',
      'or',
      'OR ',
      'and ',
      ' ',
      '\t',
      '\r',
      '\f',
      '\v',
      '\u3000',
      '\u00a0',
      '\u0085',
      '\u001c',
    );
    const runOf = (atom: string, length: number) =>
      atom.repeat(Math.ceil(length / atom.length)).slice(0, length);
    const queries = atoms.flatMap((atom) => [
      runOf(atom, 200),
      `fox ${runOf(atom, 190)}dog`,
      `-${runOf(atom, 199)}`,
    ]);
    // And mixes, from a seeded generator so that a failure replays.
    let seed = 43;
    const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const words = [...atoms, 'fox', 'dog', 'the', '"fox dog"', '-fox'];
    for (let n = 0; n < 80; n++) {
      let q = '';
      while (q.length < 1 + next(200)) q += words[next(words.length)];
      queries.push(q.slice(0, 200));
    }
    const within = ['posts', 'comments', 'bots'];
    for (const [n, q] of queries.entries()) {
      const response = await search({ q, in: within[n % 3]! });
      assert.equal(response.statusCode, 200, `${JSON.stringify(q)}: ${response.body}`);
    }
    for (const q of [runOf('-', 33), runOf('- ', 80)]) {
      const page = await t.app.inject({ url: '/search', query: { q } });
      assert.equal(page.statusCode, 200, `${JSON.stringify(q)}: ${page.body.slice(0, 300)}`);
      assert.match(page.body, /Nothing matched/);
    }
  });
});

describe('search 400', () => {
  test('no q, an empty or too long one, an unknown in, a forged cursor or one of another search', async () => {
    const bot = await registerBot(t.app);
    for (let n = 0; n < 3; n++) await createPost(t.app, bot.api_key, { title: `Lantern ${n}` });
    const cursor = (await search({ q: 'lantern', limit: '1' })).json<Page>().next_cursor!;
    assert.ok(cursor);
    const forge = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const [kind, , id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, number, string];
    // Ranks a float4 cannot hold: past its largest, below its smallest, negative past it.
    const outOfRange = [1e308, 1e-50, -1e39, 3.5e38].map((rank) => forge([kind, rank, id]));
    const cases: Array<[Record<string, string>, string]> = [
      ...outOfRange.map((forged): [Record<string, string>, string] => [
        { q: 'lantern', cursor: forged },
        '/cursor',
      ]),
      [{}, '/q'],
      [{ q: '' }, '/q'],
      [{ q: 'x'.repeat(201) }, '/q'],
      [{ q: 'lantern', in: 'everything' }, '/in'],
      [{ q: 'lantern', limit: '0' }, '/limit'],
      [{ q: 'lantern', cursor: 'garbage' }, '/cursor'],
      [{ q: 'lanterns', cursor }, '/cursor'],
      [{ q: 'lantern', in: 'bots', cursor }, '/cursor'],
      [{ q: 'lantern', cursor: forge(['search:posts:x', 'NaN', 'y']) }, '/cursor'],
    ];
    for (const [query, pointer] of cases) {
      const response = await search(query);
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      assert.deepEqual(
        response.json().errors.map((e: { in: string; pointer: string }) => `${e.in} ${e.pointer}`),
        [`query ${pointer}`],
        JSON.stringify(query),
      );
    }
  });
});

describe('the search page', () => {
  test('the box in every page header; a query lists what matched, escaped; no query, the box alone', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Tulips <b>bold</b>', body: 'tulips everywhere' });
    const lobby = await t.app.inject({ url: '/' });
    assert.match(lobby.body, /<form method="get" action="\/search" role="search"/);
    const empty = await t.app.inject({ url: '/search' });
    assert.equal(empty.statusCode, 200);
    assert.doesNotMatch(empty.body, /Nothing matched/);
    const found = await t.app.inject({ url: '/search?q=tulip' });
    assert.equal(found.statusCode, 200);
    assert.match(found.body, /Tulips &lt;b>bold&lt;\/b>/);
    const none = await t.app.inject({ url: '/search?q=daffodil&in=bots' });
    assert.match(none.body, /Nothing matched “daffodil”/);
  });
});
