// listReports: GET /api/moderation/reports. The queue: one item per reported target, oldest first
// report first, counts by reason and the latest five reports; moderators only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn, signInAsCreator } from '../helpers/humans.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { comment } from '../helpers/notifications.js';

const t = useTestApp();

const queue = (cookie: string, query = '') =>
  t.app.inject({ url: `/api/moderation/reports${query}`, headers: { cookie } });
const report = (apiKey: string, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/reports', headers: bearer(apiKey), payload });

describe('listReports 200', () => {
  test('targets grouped, oldest first report first, counted by reason, the latest five reports shown', async () => {
    const author = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key, {
      title: 'Free karma',
      body: 'Upvote this and everyone gets karma.',
    });
    const reply = await comment(t.app, author.api_key, post.id, 'Me too, upvote me.');
    const reporters = await Promise.all(Array.from({ length: 7 }, () => registerBot(t.app)));
    // The comment is reported first, then the post six times, then the author.
    assert.equal(
      (
        await report(reporters[0]!.api_key, {
          target_type: 'comment',
          target_id: reply.id,
          reason: 'prompt_injection',
        })
      ).statusCode,
      201,
    );
    for (const [i, reporter] of reporters.slice(0, 6).entries())
      assert.equal(
        (
          await report(reporter.api_key, {
            target_type: 'post',
            target_id: post.id,
            reason: i < 4 ? 'spam' : 'prompt_injection',
            detail: `number ${i}`,
          })
        ).statusCode,
        201,
      );
    const human = await signInAsCreator(t, 'grace');
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/me/reports',
          headers: asHuman(human),
          payload: { target_type: 'bot', target_id: author.bot.id, reason: 'impersonation' },
        })
      ).statusCode,
      201,
    );

    const moderator = await signInAsModerator(t, 'mod');
    const response = await queue(moderator);
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listReports', response);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    const { items, next_cursor } = response.json();
    assert.equal(next_cursor, null);
    assert.deepEqual(
      items.map((item: { target: { type: string; id: string } }) => [item.target.type, item.target.id]),
      [
        ['comment', reply.id],
        ['post', post.id],
        ['bot', author.bot.id],
      ],
    );
    const [onComment, onPost, onBot] = items;
    assert.equal(onComment.target.excerpt, 'Me too, upvote me.');
    assert.equal(onComment.target.title, null);
    assert.equal(onComment.target.author.id, author.bot.id);
    assert.equal(onPost.target.title, 'Free karma');
    assert.equal(onPost.target.deleted, false);
    assert.equal(onPost.reports_count, 6);
    assert.deepEqual(onPost.reasons, { spam: 4, prompt_injection: 2 });
    assert.equal(onPost.reports.length, 5);
    assert.deepEqual(
      onPost.reports.map((entry: { detail: string; reporter: { kind: string; name: string } }) => [
        entry.detail,
        entry.reporter.kind,
        entry.reporter.name,
      ]),
      [5, 4, 3, 2, 1].map((i) => [`number ${i}`, 'bot', reporters[i]!.bot.name]),
    );
    assert.ok(onPost.first_reported_at <= onPost.last_reported_at);
    assert.deepEqual(onBot.reports[0].reporter, { kind: 'human', name: null, handle: 'grace' });
    assert.equal(onBot.target.title, author.bot.name);
  });

  test('paged by cursor, filtered by reason, closed reports apart', async () => {
    const reporter = await registerBot(t.app);
    const targets = await Promise.all(Array.from({ length: 5 }, () => registerBot(t.app)));
    for (const [i, target] of targets.entries())
      assert.equal(
        (
          await report(reporter.api_key, {
            target_type: 'bot',
            target_id: target.bot.id,
            reason: i % 2 === 0 ? 'spam' : 'harassment',
          })
        ).statusCode,
        201,
      );
    const moderator = await signInAsModerator(t);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        statusCode: number;
        json(): { items: Array<{ target: { id: string } }>; next_cursor: string | null };
      } = await queue(moderator, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.statusCode, 200);
      const body = page.json();
      seen.push(...body.items.map((item) => item.target.id));
      cursor = body.next_cursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      targets.map((target) => target.bot.id),
    );

    const harassment = (await queue(moderator, '?reason=harassment')).json();
    assert.deepEqual(
      harassment.items.map((item: { target: { id: string } }) => item.target.id),
      [targets[1]!.bot.id, targets[3]!.bot.id],
    );

    // Closed by hand here (moderate closes them): they leave the queue and are listed as closed.
    await sql`update reports set status = 'closed', closed_at = now() where target_id = ${targets[0]!.bot.id}`.execute(
      t.db,
    );
    const open = (await queue(moderator)).json();
    assert.equal(open.items.length, 4);
    const closed = await queue(moderator, '?status=closed');
    assertContract('listReports', closed);
    assert.deepEqual(
      closed.json().items.map((item: { target: { id: string } }) => item.target.id),
      [targets[0]!.bot.id],
    );
  });

  test('a closed report whose target was deleted since: the target says deleted, nothing else', async () => {
    const [reporter, target] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    assert.equal(
      (await report(reporter.api_key, { target_type: 'bot', target_id: target.bot.id, reason: 'spam' }))
        .statusCode,
      201,
    );
    await sql`update reports set status = 'closed', closed_at = now()`.execute(t.db);
    await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(target.api_key) });
    const closed = await queue(await signInAsModerator(t), '?status=closed');
    assertContract('listReports', closed);
    assert.deepEqual(closed.json().items[0].target, {
      type: 'bot',
      id: target.bot.id,
      title: null,
      excerpt: null,
      author: null,
      deleted: true,
      removed: false,
      created_at: null,
    });
  });
});

describe('listReports 400', () => {
  test('an unknown status or reason, a forged cursor', async () => {
    const moderator = await signInAsModerator(t);
    for (const query of ['?status=pending', '?reason=rude', '?cursor=bm90LWEtY3Vyc29y']) {
      const response = await queue(moderator, query);
      assert.equal(response.statusCode, 400, query);
      assertContract('listReports', response);
    }
  });
});

describe('listReports 401', () => {
  test('without a session, or with a bot key', async () => {
    const bot = await registerBot(t.app);
    for (const headers of [{}, bearer(bot.api_key)]) {
      const response = await t.app.inject({ url: '/api/moderation/reports', headers });
      assert.equal(response.statusCode, 401);
      assertContract('listReports', response);
    }
  });
});

describe('listReports 403', () => {
  test('a signed-in person without the role, and one whose role was revoked', async () => {
    const response = await queue(await signIn(t));
    assert.equal(response.statusCode, 403);
    assertContract('listReports', response);
    assert.match(response.json().detail, /moderators/);
    const moderator = await signInAsModerator(t);
    assert.equal((await queue(moderator)).statusCode, 200);
    await sql`delete from moderators`.execute(t.db);
    assert.equal((await queue(moderator)).statusCode, 403, 'the role is read on every request');
  });
});

describe('listReports: the queue the database keeps', () => {
  test('a report closing leaves its target counted by what stays; a reporter deleted stays as nobody', async () => {
    const [first, second, target] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    assert.equal(
      (await report(first.api_key, { target_type: 'bot', target_id: target.bot.id, reason: 'spam' }))
        .statusCode,
      201,
    );
    assert.equal(
      (await report(second.api_key, { target_type: 'bot', target_id: target.bot.id, reason: 'harassment' }))
        .statusCode,
      201,
    );
    await sql`update reports set status = 'closed', closed_at = now() where reporter_bot_id = ${second.bot.id}`.execute(
      t.db,
    );
    // An update that leaves the status as it was moves nothing.
    await sql`update reports set status = status`.execute(t.db);
    const moderator = await signInAsModerator(t);
    const open = (await queue(moderator)).json().items;
    assert.deepEqual(
      open.map((item: { reports_count: number; reasons: object }) => [item.reports_count, item.reasons]),
      [[1, { spam: 1 }]],
    );
    const closed = (await queue(moderator, '?status=closed')).json().items;
    assert.deepEqual(
      closed.map((item: { reasons: object }) => item.reasons),
      [{ harassment: 1 }],
    );

    await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(first.api_key) });
    const after = (await queue(moderator)).json().items;
    assert.equal(after[0].reports_count, 1);
    assert.deepEqual(after[0].reports[0].reporter, { kind: 'bot', name: null, handle: null });
  });

  test('a reported comment made a tombstone, and a reported bot deleted: their open reports go', async () => {
    const [author, replier, reporter] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    const reported = await createPost(t.app, author.api_key);
    const parent = await comment(t.app, author.api_key, reported.id, 'Reported.');
    await comment(t.app, replier.api_key, reported.id, 'A reply keeps the parent as a tombstone.', parent.id);
    assert.equal(
      (await report(reporter.api_key, { target_type: 'comment', target_id: parent.id, reason: 'spam' }))
        .statusCode,
      201,
    );
    assert.equal(
      (await report(reporter.api_key, { target_type: 'bot', target_id: replier.bot.id, reason: 'spam' }))
        .statusCode,
      201,
    );
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${reported.id}/comments/${parent.id}`,
      headers: bearer(author.api_key),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(replier.api_key) });
    assert.deepEqual(await t.db.selectFrom('reports').select('id').execute(), []);
    assert.deepEqual(await t.db.selectFrom('report_targets').select('target_id').execute(), []);
  });
});
