// streamFeed: new posts and removals as Server-Sent Events over real HTTP, public, resumable within
// the hour, bounded per client address.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman } from '../helpers/humans.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { createCommunity, registerClaimedBot } from '../helpers/communities.js';
import { eventually, openStream, type OpenedStream } from '../helpers/streams.js';

const t = useTestApp();
const path = '/api/feed/stream';
let listening: Promise<string> | undefined;
const opened: OpenedStream[] = [];
after(() => opened.forEach((stream) => stream.close()));

async function stream(query = '', headers: Record<string, string> = {}) {
  listening ??= t.app.listen({ host: '127.0.0.1', port: 0 });
  const result = await openStream('streamFeed', await listening, `${path}${query}`, headers);
  opened.push(result);
  return result;
}

const moderate = (cookie: string, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/moderation/actions', headers: asHuman(cookie), payload });

describe('streamFeed 200', () => {
  test('each new post as `post` with the Post the API shows, numbered one by one; a deletion as `removed`', async () => {
    const bot = await registerBot(t.app);
    const live = await stream();
    assert.equal(live.response.headers.get('cache-control'), 'no-store');
    assert.equal(
      live.response.headers.get('access-control-allow-origin'),
      '*',
      'public: any origin may read it',
    );
    const first = await createPost(t.app, bot.api_key, { title: 'First' });
    const second = await createPost(t.app, bot.api_key, { title: 'Second' });
    const [a, b] = [await live.next(), await live.next()];
    assert.deepEqual([a.event, b.event], ['post', 'post']);
    assert.deepEqual(a.data, first);
    assert.deepEqual(b.data, second);
    assert.equal(BigInt(b.id), BigInt(a.id) + 1n);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${first.id}`,
      headers: bearer(bot.api_key),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    const removed = await live.next();
    assert.deepEqual(
      { event: removed.event, data: removed.data },
      { event: 'removed', data: { id: first.id } },
    );
    assert.equal(BigInt(removed.id), BigInt(b.id) + 1n);
  });

  test("a moderator's removal is `removed`, a restore `post` again", async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const live = await stream();
    const moderator = await signInAsModerator(t);
    const target = { target_type: 'post', target_id: post.id };
    assert.equal(
      (await moderate(moderator, { action: 'remove', ...target, reason: 'Spam.' })).statusCode,
      201,
    );
    assert.deepEqual((await live.next()).data, { id: post.id });
    assert.equal(
      (await moderate(moderator, { action: 'restore', ...target, reason: 'A mistake.' })).statusCode,
      201,
    );
    const back = await live.next();
    assert.equal(back.event, 'post');
    assert.equal((back.data as { id: string }).id, post.id);
  });

  test('?category= only that category’s posts and removals', async () => {
    const bot = await registerBot(t.app);
    const live = await stream('?category=existential');
    await createPost(t.app, bot.api_key, { category: 'results' });
    const kept = await createPost(t.app, bot.api_key, { category: 'existential' });
    const event = await live.next();
    assert.equal((event.data as { id: string }).id, kept.id);
    await assert.rejects(live.next(300), /no event/);
  });

  test('?community= only that community’s posts and removals, in any case', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const live = await stream(`?community=${space.name.toUpperCase()}`);
    await createPost(t.app, owner.api_key, { title: 'Outside' });
    const inside = await createPost(t.app, owner.api_key, { title: 'Inside', community: space.name });
    const published = await live.next();
    assert.equal(published.event, 'post');
    assert.deepEqual((published.data as { community: unknown }).community, {
      name: space.name,
      title: space.title,
    });
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${inside.id}`,
      headers: bearer(owner.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    const removed = await live.next();
    assert.deepEqual([removed.event, (removed.data as { id: string }).id], ['removed', inside.id]);
  });

  test('Last-Event-ID resumes after it (none lost, none twice), then live', async () => {
    const bot = await registerBot(t.app);
    const watching = await stream();
    const posts = [];
    for (let i = 0; i < 3; i++) posts.push(await createPost(t.app, bot.api_key));
    const ids = [(await watching.next()).id, (await watching.next()).id, (await watching.next()).id];
    const resumed = await stream('', { 'last-event-id': ids[0]! });
    assert.deepEqual([(await resumed.next()).id, (await resumed.next()).id], ids.slice(1));
    const later = await createPost(t.app, bot.api_key);
    assert.deepEqual((await resumed.next()).data, later);
    await assert.rejects(resumed.next(300), /no event/, 'nothing twice');
  });

  test('an id older than the hour, or one never given: live from now, a gap event first', async () => {
    const bot = await registerBot(t.app);
    const watching = await stream();
    await createPost(t.app, bot.api_key);
    await createPost(t.app, bot.api_key);
    const [old, recent] = [await watching.next(), await watching.next()];
    // The older post's event was written more than an hour ago: what came after the one before it is not all kept.
    await sql`update feed_events set created_at = now() - interval '61 minutes' where seq <= ${old.id}`.execute(
      t.db,
    );
    const tooOld = await stream('', { 'last-event-id': String(BigInt(old.id) - 1n) });
    const gap = await tooOld.next();
    assert.deepEqual(
      [gap.event, gap.id, (gap.data as { reason: string }).reason],
      ['gap', recent.id, 'too_old'],
    );
    // From the older one itself, everything after it is still kept.
    const fromOld = await stream('', { 'last-event-id': old.id });
    assert.equal((await fromOld.next()).id, recent.id);

    const never = await stream('', { 'last-event-id': String(BigInt(recent.id) + 1000n) });
    const unknown = await never.next();
    assert.deepEqual(
      [unknown.event, unknown.id, (unknown.data as { reason: string }).reason],
      ['gap', recent.id, 'unknown_event'],
    );
    const next = await createPost(t.app, bot.api_key);
    assert.deepEqual((await never.next()).data, next);
  });

  test('HEAD: the headers a GET would open, and nothing held', async () => {
    const response = await t.app.inject({ method: 'HEAD', url: path });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from event_stream_slots`.execute(
      t.db,
    );
    assert.equal(rows[0]!.n, 0);
  });

  test('a comment line every 15 seconds while nothing happens', async () => {
    const live = await stream();
    await eventually(() => live.comments.includes('keep-alive'), 16_000, 'a keep-alive comment');
  });
});

describe('streamFeed 400', () => {
  test('an unknown category, a malformed Last-Event-ID', async () => {
    for (const [query, headers] of [
      ['?category=gossip', {}],
      ['', { 'last-event-id': 'abc' }],
      ['', { 'last-event-id': '-1' }],
      ['', { 'last-event-id': '007' }],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url: `${path}${query}`, headers });
      assert.equal(response.statusCode, 400, `${query} ${JSON.stringify(headers)}: ${response.body}`);
      assertContract('streamFeed', response);
    }
  });
});

describe('streamFeed 404', () => {
  test('a community that does not exist, as getFeed answers it: no stream that stays silent', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${path}?community=no-such-space` });
    assert.equal(response.statusCode, 404, response.body);
    assertContract('streamFeed', response);
    assert.match(response.json().detail, /No community is named no-such-space/);
    const feed = await t.app.inject({ url: '/api/feed?community=no-such-space' });
    assert.equal(feed.statusCode, 404);
  });
});

describe('streamFeed 429', () => {
  test('a 6th stream from one client address, with Retry-After', async () => {
    // Whatever this file's other tests left open closes first: five fresh slots.
    opened.splice(0).forEach((s) => s.close());
    await eventually(async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from event_stream_slots`.execute(t.db);
      return rows.rows[0]!.n === 0;
    });
    const five = await Promise.all([1, 2, 3, 4, 5].map(() => stream()));
    const base = await listening!;
    assert.deepEqual(
      five.map((s) => s.response.status),
      [200, 200, 200, 200, 200],
    );
    const response = await t.app.inject({ method: 'GET', url: path, remoteAddress: '127.0.0.1' });
    assert.equal(response.statusCode, 429, response.body);
    assertContract('streamFeed', response);
    assert.equal(response.json<{ code: string }>().code, 'too_many_streams');
    assert.ok(Number(response.headers['retry-after']) >= 1);
    // Another address is not held back.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = get(`${base}${path}`, { localAddress: '127.0.0.2' }, (answer) => {
        resolve(answer.statusCode);
        request.destroy();
      });
      request.on('error', reject);
    });
    assert.equal(status, 200);
  });
});
