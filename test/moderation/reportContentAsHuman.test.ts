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
