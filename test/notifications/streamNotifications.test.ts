// streamNotifications: the inbox as Server-Sent Events over real HTTP, resumable without loss,
// bounded per bot, and ended by whatever ends the bot's key or standing.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { after, describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot, withBrokenChecksum } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';
import { comment, inbox } from '../helpers/notifications.js';
import { eventually, openStream, within, type OpenedStream } from '../helpers/streams.js';

const t = useTestApp();
const path = '/api/bots/me/notifications/stream';
let listening: Promise<string> | undefined;
const opened: OpenedStream[] = [];
after(() => opened.forEach((stream) => stream.close()));

async function stream(apiKey: string | undefined, headers: Record<string, string> = {}, query = '') {
  listening ??= t.app.listen({ host: '127.0.0.1', port: 0 });
  const result = await openStream('streamNotifications', await listening, `${path}${query}`, {
    ...(apiKey ? bearer(apiKey) : {}),
    ...headers,
  });
  opened.push(result);
  return result;
}

/** A bot with a post, and another that comments on it `count` times: the comments' notification ids, oldest first. */
async function notified(count: number) {
  const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
  const post = await createPost(t.app, ada.api_key);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) await comment(t.app, grace.api_key, post.id, `Comment ${i}.`);
  const page = await inbox(t.app, ada.api_key);
  ids.push(...page.items.map((item) => item.id).reverse());
  return { ada: ada, grace: grace, post, ids };
}

async function openSlots(botKey: string) {
  const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
  const line = metrics.body
    .split('\n')
    .find((l) => l.startsWith('event_streams_open{stream="notifications"}'));
  return { open: Number(line?.split(' ')[1]), key: botKey };
}

describe('streamNotifications 200', () => {
  test('each new notification as an event with its id, in the order written; a retry delay first', async () => {
    const { ada, grace, post } = await notified(0);
    const live = await stream(ada.api_key);
    assert.equal(live.response.status, 200);
    assert.equal(live.response.headers.get('cache-control'), 'private, no-store');
    assert.equal(live.response.headers.get('x-accel-buffering'), 'no');
    const written = [];
    for (let i = 0; i < 3; i++) written.push(await comment(t.app, grace.api_key, post.id, `Live ${i}.`));
    const events = [await live.next(), await live.next(), await live.next()];
    assert.deepEqual(
      events.map((event) => event.event),
      ['notification', 'notification', 'notification'],
    );
    const page = await inbox(t.app, ada.api_key);
    assert.deepEqual(
      events.map((event) => event.id),
      page.items.map((item) => item.id).reverse(),
    );
    assert.deepEqual(
      events.map((event) => (event.data as { comment: { id: string } }).comment.id),
      written.map((c) => c.id),
    );
    // The same Notification the inbox shows.
    assert.deepEqual(events[0]!.data, page.items.at(-1));
    assert.equal(live.retry, 2000);
  });

  test('Last-Event-ID replays what came after it from the inbox, then goes live: none lost, none twice', async () => {
    const { ada, grace, post, ids } = await notified(4);
    const resumed = await stream(ada.api_key, { 'last-event-id': ids[1]! });
    assert.deepEqual([(await resumed.next()).id, (await resumed.next()).id], ids.slice(2));
    await comment(t.app, grace.api_key, post.id, 'After the resume.');
    const live = await resumed.next();
    assert.equal((live.data as { comment: { body: string } }).comment.body, 'After the resume.');
    await assert.rejects(resumed.next(300), /no event/, 'nothing twice');
  });

  test('?after= resumes the same way on a first connection; Last-Event-ID wins over it', async () => {
    const { ada, ids } = await notified(3);
    const first = await stream(ada.api_key, {}, `?after=${ids[0]}`);
    assert.deepEqual([(await first.next()).id, (await first.next()).id], ids.slice(1));
    const both = await stream(ada.api_key, { 'last-event-id': ids[1]! }, `?after=${ids[0]}`);
    assert.equal((await both.next()).id, ids[2]);
    await assert.rejects(both.next(300), /no event/);
  });

  test('an id the inbox does not hold: live from now, with a gap event first that names where it starts', async () => {
    const { ada, grace, post, ids } = await notified(2);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const resumed = await stream(ada.api_key, { 'last-event-id': unknown });
    const gap = await resumed.next();
    assert.equal(gap.event, 'gap');
    assert.equal(gap.id, ids[1], 'the newest notification: a reconnection resumes from there');
    assert.equal((gap.data as { reason: string }).reason, 'unknown_event');
    await comment(t.app, grace.api_key, post.id, 'New.');
    assert.equal((await resumed.next()).event, 'notification');

    // A bot with no notification at all: the gap's id is empty.
    const empty = await registerBot(t.app);
    const fresh = await stream(empty.api_key, { 'last-event-id': unknown });
    assert.equal((await fresh.next()).id, '');
  });

  test('counted in /metrics while open, and no longer once the client goes', async () => {
    const bot = await registerBot(t.app);
    const before = (await openSlots(bot.api_key)).open;
    const live = await stream(bot.api_key);
    assert.equal((await openSlots(bot.api_key)).open, before + 1);
    live.close();
    await eventually(
      async () => (await openSlots(bot.api_key)).open === before,
      5_000,
      'the gauge going down',
    );
  });
});

describe('streamNotifications ends', () => {
  test('when the key is rotated, within a second; the old key cannot open another', async () => {
    const bot = await registerBot(t.app);
    const live = await stream(bot.api_key);
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/keys',
      headers: bearer(bot.api_key),
    });
    assert.equal(rotated.statusCode, 201, rotated.body);
    await within(live.ended, 1_000, 'the stream ending');
    assert.equal((await stream(bot.api_key)).response.status, 401);
  });

  test('when the bot is suspended, within a second; a suspended bot opens none (403)', async () => {
    const bot = await registerBot(t.app);
    const live = await stream(bot.api_key);
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Flooding.',
    });
    await within(live.ended, 1_000, 'the stream ending');
    const refused = await stream(bot.api_key);
    assert.equal(refused.response.status, 403);
    const problem = (await refused.response.json()) as { code: string };
    assert.equal(problem.code, 'suspended');
  });

  test('when its key expires, at the keep-alive after the expiry; the expired key opens none (401)', async () => {
    const { ada: bot, grace, post } = await notified(0);
    const expiresAt = new Date(Date.now() + 60 * 60_000);
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/api-keys',
      headers: bearer(bot.api_key),
      payload: { name: 'short-lived', scopes: ['read'], expires_at: expiresAt.toISOString() },
    });
    assert.equal(issued.statusCode, 201, issued.body);
    const key = issued.json<{ api_key: string }>().api_key;
    const live = await stream(key);
    const lasting = await stream(bot.api_key);
    // A keep-alive before the expiry keeps it; the first one after ends it, and only it.
    await t.app.eventStreams.keepAlive(new Date(expiresAt.getTime() - 1_000));
    await t.app.eventStreams.keepAlive(new Date(expiresAt.getTime() + 1_000));
    await within(live.ended, 1_000, 'the stream ending');
    // The stream of the key that does not expire goes on: it has the next notification.
    await comment(t.app, grace.api_key, post.id, 'Still there?');
    assert.equal((await lasting.next()).event, 'notification');
    await t.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .where('name', '=', 'short-lived')
      .execute();
    assert.equal((await stream(key)).response.status, 401);
  });

  test('when the bot is deleted, within a second', async () => {
    const bot = await registerBot(t.app);
    const live = await stream(bot.api_key);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/bots/me',
      headers: bearer(bot.api_key),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    await within(live.ended, 1_000, 'the stream ending');
  });

  test('when the app closes: every stream ends, and the app closes', async () => {
    // A second app on the same database, closed here; this file's app keeps serving.
    const { buildApp } = await import('../../src/app.js');
    const other = await buildApp({ config: t.config, db: t.db, signals: t.database.signals });
    const otherBase = await other.listen({ host: '127.0.0.1', port: 0 });
    const bot = await registerBot(t.app);
    const live = await openStream('streamNotifications', otherBase, path, bearer(bot.api_key));
    assert.equal(live.response.status, 200);
    await within(other.close(), 5_000, 'the app closing');
    await within(live.ended, 1_000, 'the stream ending');
    // Its slot is freed with it: the bot may open three more at once here.
    const three = await Promise.all([1, 2, 3].map(() => stream(bot.api_key)));
    assert.deepEqual(
      three.map((s) => s.response.status),
      [200, 200, 200],
    );
  });
});

describe('streamNotifications 400', () => {
  test('a malformed Last-Event-ID or after, before the stream opens', async () => {
    const bot = await registerBot(t.app);
    for (const [headers, query] of [
      [{ 'last-event-id': 'not-an-id' }, ''],
      [{}, '?after=42'],
    ] as const) {
      const response = await t.app.inject({
        method: 'GET',
        url: `${path}${query}`,
        headers: { ...bearer(bot.api_key), ...headers },
      });
      assert.equal(response.statusCode, 400, response.body);
      assertContract('streamNotifications', response);
    }
  });
});

describe('streamNotifications 401', () => {
  test('no key, a malformed key, an unknown key: 401 before any stream', async () => {
    const bot = await registerBot(t.app);
    for (const headers of [{}, { authorization: 'Bearer nope' }, bearer(withBrokenChecksum(bot.api_key))]) {
      const response = await t.app.inject({ method: 'GET', url: path, headers });
      assert.equal(response.statusCode, 401, response.body);
      assertContract('streamNotifications', response);
    }
  });
});

describe('streamNotifications 429', () => {
  test('a 4th stream of one bot, with Retry-After; a slot freed by a closed stream opens again', async () => {
    const bot = await registerBot(t.app);
    const three = await Promise.all([1, 2, 3].map(() => stream(bot.api_key)));
    assert.deepEqual(
      three.map((s) => s.response.status),
      [200, 200, 200],
    );
    const response = await t.app.inject({ method: 'GET', url: path, headers: bearer(bot.api_key) });
    assert.equal(response.statusCode, 429, response.body);
    assertContract('streamNotifications', response);
    assert.equal(response.json<{ code: string }>().code, 'too_many_streams');
    const retryAfter = Number(response.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 45, `Retry-After ${retryAfter}`);
    // Another bot is not held back by this one's slots.
    assert.equal((await stream((await registerBot(t.app)).api_key)).response.status, 200);

    three[0]!.close();
    await eventually(
      async () => (await stream(bot.api_key)).response.status === 200,
      5_000,
      'a slot freeing',
    );
  });

  test('one client address holds at most 5 streams, notification and feed streams together', async () => {
    const bots = await Promise.all([1, 2, 3, 4].map(() => registerBot(t.app)));
    // 3 of the first bot's, 2 of the second's: the address's 5.
    const held = await Promise.all([
      ...[1, 2, 3].map(() => stream(bots[0]!.api_key)),
      ...[1, 2].map(() => stream(bots[1]!.api_key)),
    ]);
    assert.deepEqual(
      held.map((s) => s.response.status),
      [200, 200, 200, 200, 200],
    );
    // A third bot's first stream, and a feed stream, from the same address: refused, the address named.
    for (const response of [
      await t.app.inject({ url: path, headers: bearer(bots[2]!.api_key), remoteAddress: '127.0.0.1' }),
      await t.app.inject({ url: '/api/feed/stream', remoteAddress: '127.0.0.1' }),
    ]) {
      assert.equal(response.statusCode, 429, response.body);
      assert.equal(response.json<{ code: string }>().code, 'too_many_streams');
      assert.match(response.json<{ detail: string }>().detail, /client address already holds 5 streams/);
      assert.ok(Number(response.headers['retry-after']) >= 1);
    }
    // Another address is not held back.
    const base = await listening!;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = get(
        `${base}${path}`,
        { localAddress: '127.0.0.2', headers: bearer(bots[3]!.api_key) },
        (answer) => {
          resolve(answer.statusCode);
          request.destroy();
        },
      );
      request.on('error', reject);
    });
    assert.equal(status, 200);
    // One closes: the address may open one more.
    held[4]!.close();
    await eventually(
      async () => (await stream(bots[2]!.api_key)).response.status === 200,
      5_000,
      'a slot freeing',
    );
  });
});
