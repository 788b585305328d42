// reportContentAsHuman: POST /api/me/reports. A signed-in person reports as a bot does; their own
// content is that of the bots they claimed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn, signInAsCreator } from '../helpers/humans.js';

const limit = 3;
const t = useTestApp({ limits: { ...testConfig().limits, reports: limit } });

const report = (cookie: string, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/me/reports', headers: asHuman(cookie), payload });
let reporters = 0;
const reportRows = () => t.db.selectFrom('reports').selectAll().execute();

describe('reportContentAsHuman 201', () => {
  test('a person reports a post, then again while it is open: 200, the same report, nothing written', async () => {
    const grace = await registerBot(t.app);
    const post = await createPost(t.app, grace.api_key);
    const cookie = await signIn(t);
    const payload = { target_type: 'post', target_id: post.id, reason: 'spam', detail: 'An ad.' };
    const first = await report(cookie, payload);
    assert.equal(first.statusCode, 201, first.body);
    assertContract('reportContentAsHuman', first);
    assert.equal(first.json().status, 'open');
    const again = await report(cookie, { ...payload, reason: 'other' });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), first.json());
    const rows = await reportRows();
    assert.deepEqual(
      rows.map((row) => [row.reporter_kind, row.reporter_bot_id, row.detail]),
      [['human', null, 'An ad.']],
    );
  });
});

describe('reportContentAsHuman 400', () => {
  test('a bot one claimed, and its post: self_report', async () => {
    const cookie = await signInAsCreator(t, 'ada');
    const registered = await registerBot(t.app);
    const claimed = await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: registered.claim_code },
    });
    assert.equal(claimed.statusCode, 200, claimed.body);
    const post = await createPost(t.app, registered.api_key);
    for (const [target_type, target_id] of [
      ['bot', registered.bot.id],
      ['post', post.id],
    ]) {
      const response = await report(cookie, { target_type, target_id, reason: 'spam' });
      assert.equal(response.statusCode, 400, response.body);
      assertContract('reportContentAsHuman', response);
      assert.equal(response.json().code, 'self_report');
    }
    assert.equal((await reportRows()).length, 0);
  });
});

describe('reportContentAsHuman 401', () => {
  test('without a session, and with a bot key instead', async () => {
    const grace = await registerBot(t.app);
    const payload = { target_type: 'bot', target_id: grace.bot.id, reason: 'spam' };
    const none = await t.app.inject({ method: 'POST', url: '/api/me/reports', payload });
    assert.equal(none.statusCode, 401);
    assertContract('reportContentAsHuman', none);
    const asBot = await t.app.inject({
      method: 'POST',
      url: '/api/me/reports',
      headers: bearer(grace.api_key),
      payload,
    });
    assert.equal(asBot.statusCode, 401);
    assert.equal((await reportRows()).length, 0);
  });
});

describe('reportContentAsHuman 403', () => {
  test('from another origin: refused, nothing written', async () => {
    const grace = await registerBot(t.app);
    const cookie = await signIn(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/me/reports',
      headers: { cookie, origin: 'https://elsewhere.example' },
      payload: { target_type: 'bot', target_id: grace.bot.id, reason: 'spam' },
    });
    assert.equal(response.statusCode, 403);
    assertContract('reportContentAsHuman', response);
    assert.equal((await reportRows()).length, 0);
  });
});

describe('reportContentAsHuman 404', () => {
  test('an unknown comment', async () => {
    const cookie = await signIn(t);
    const response = await report(cookie, {
      target_type: 'comment',
      target_id: '00000000-0000-4000-8000-000000000000',
      reason: 'spam',
    });
    assert.equal(response.statusCode, 404);
    assertContract('reportContentAsHuman', response);
  });
});

describe('reportContentAsHuman 429', () => {
  test(`the ${limit + 1}th report of a person within the hour`, async () => {
    const cookie = await signIn(t);
    const bots = await Promise.all(Array.from({ length: limit + 1 }, () => registerBot(t.app)));
    for (const bot of bots.slice(0, limit))
      assert.equal(
        (await report(cookie, { target_type: 'bot', target_id: bot.bot.id, reason: 'spam' })).statusCode,
        201,
      );
    const refused = await report(cookie, {
      target_type: 'bot',
      target_id: bots[limit]!.bot.id,
      reason: 'spam',
    });
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('reportContentAsHuman', refused);
    assert.equal((await reportRows()).length, limit);
    // Another person has a limit of their own.
    const other = await signIn(t);
    assert.equal(
      (await report(other, { target_type: 'bot', target_id: bots[limit]!.bot.id, reason: 'spam' }))
        .statusCode,
      201,
    );
  });
});

describe('reportContentAsHuman from the pages: the Report control', () => {
  const page = (url: string, cookie?: string) =>
    t.app.inject({ url, headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
  const sendForm = (cookie: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { ...asHuman(cookie), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });

  test('signed in, a post, its comments and a bot each offer one; it sends a report and leads back', async () => {
    const grace = await registerBot(t.app);
    const post = await createPost(t.app, grace.api_key);
    const commented = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(grace.api_key),
      payload: { body: 'A reply to myself.' },
    });
    assert.equal(commented.statusCode, 201, commented.body);
    const cookie = await signIn(t);

    const anonymous = await page(`/posts/${post.id}`);
    assert.doesNotMatch(anonymous.body, /action="\/report"/, 'nobody signed in, no control');
    const postPage = await page(`/posts/${post.id}`, cookie);
    for (const [type, id] of [
      ['post', post.id],
      ['comment', commented.json().id as string],
    ])
      assert.match(
        postPage.body,
        new RegExp(`name="target_type" value="${type}"/><input type="hidden" name="target_id" value="${id}"`),
      );
    const botPage = await page(`/bot/${grace.bot.name}`, cookie);
    assert.match(botPage.body, new RegExp(`name="target_id" value="${grace.bot.id}"`));

    const sent = await sendForm(cookie, {
      target_type: 'post',
      target_id: post.id,
      return_to: `/posts/${post.id}`,
      reason: 'spam',
      detail: 'An advertisement.',
    });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.match(sent.body, /Report sent/);
    assert.match(sent.body, new RegExp(`href="/posts/${post.id}"`));
    assert.deepEqual(
      (await reportRows()).map((row) => [row.target_id, row.reporter_kind, row.reason, row.detail]),
      [[post.id, 'human', 'spam', 'An advertisement.']],
    );

    // Somewhere else than this site is never where it leads back, however it is disguised (a
    // browser drops a tab or a line break, so `/\t/evil.example` would be `//evil.example`).
    for (const returnTo of ['//evil.example/', '/\t/evil.example', '/\\evil.example']) {
      const elsewhere = await sendForm(await signInAsCreator(t, `reporter-${++reporters}`), {
        target_type: 'bot',
        target_id: grace.bot.id,
        return_to: returnTo,
        reason: 'other',
      });
      assert.equal(elsewhere.statusCode, 200);
      assert.match(elsewhere.body, /<a href="\/">Back/, JSON.stringify(returnTo));
    }
  });

  test('what the operation refuses is said on the page, with its status; nothing written', async () => {
    const cookie = await signInAsCreator(t, 'page-reporter');
    const mine = await registerBot(t.app);
    const claimed = await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: mine.claim_code },
    });
    assert.equal(claimed.statusCode, 200, claimed.body);
    const before = (await reportRows()).length;
    const own = await sendForm(cookie, {
      target_type: 'bot',
      target_id: mine.bot.name,
      return_to: `/bot/${mine.bot.name}`,
      reason: 'spam',
    });
    assert.equal(own.statusCode, 400);
    assert.match(own.body, /The report was not sent/);
    assert.match(own.body, /A report is about someone else/);
    const unknown = await sendForm(cookie, {
      target_type: 'bot',
      target_id: 'no-such-bot-anywhere',
      reason: 'spam',
    });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /No bot has the id or name no-such-bot-anywhere/);
    assert.equal((await reportRows()).length, before);
  });
});
