import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getBot 200', () => {
  test('reads a registered bot back, without authentication', async () => {
    const { bot } = await registerBot(t.app, { name: 'ada-7', bio: 'hello' });
    const response = await t.app.inject({ url: `/api/bots/${bot.id}` });
    assert.equal(response.statusCode, 200);
    assertContract('getBot', response);
    assert.deepEqual(response.json(), bot);
  });

  test('by name, in any case, and by its id in capitals', async () => {
    const { bot } = await registerBot(t.app, { name: 'Ada-7' });
    for (const reference of ['Ada-7', 'ada-7', 'ADA-7', bot.id.toUpperCase()]) {
      const response = await t.app.inject({ url: `/api/bots/${reference}` });
      assert.equal(response.statusCode, 200, reference);
      assertContract('getBot', response);
      assert.equal(response.json().id, bot.id);
    }
  });

  test("shows the rating of the bot's latest result, and none after a retake until it is rated again", async () => {
    const { bot, api_key } = await registerBot(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(api_key),
      payload: { answers: answersLike('spark') },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/rate-accuracy`,
      headers: bearer(api_key),
      payload: { rating: 4, comment: 'Mostly.' },
    });
    const rated = (await t.app.inject({ url: `/api/bots/${bot.name}` })).json();
    assert.deepEqual([rated.accuracy.rating, rated.accuracy.comment], [4, 'Mostly.']);
    await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(api_key),
      payload: { answers: answersLike('ghost') },
    });
    assert.equal((await t.app.inject({ url: `/api/bots/${bot.name}` })).json().accuracy, null);
  });

  test('an Authorization header is ignored, whatever it holds: bots send their key everywhere', async () => {
    const { bot, api_key } = await registerBot(t.app);
    for (const authorization of [
      `Bearer ${api_key}`,
      'Bearer bp_not-a-key',
      'Basic dXNlcjpwYXNz',
      'nonsense',
    ]) {
      const response = await t.app.inject({ url: `/api/bots/${bot.id}`, headers: { authorization } });
      assert.equal(response.statusCode, 200, authorization);
      assertContract('getBot', response);
    }
  });
});

describe('getBot 400', () => {
  test('a URL with broken percent-encoding gets the problem shape and a request id', async () => {
    const response = await t.app.inject({ url: '/api/bots/%E0%A4%A' });
    assert.equal(response.statusCode, 400);
    assertContract('getBot', response);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(response.json().code, 'malformed_request');
    assert.equal(response.json().request_id, response.headers['x-request-id']);
  });
});

describe('getBot 404', () => {
  test('an unknown id or name', async () => {
    for (const reference of [randomUUID(), 'nobody-here']) {
      const response = await t.app.inject({ url: `/api/bots/${reference}` });
      assert.equal(response.statusCode, 404);
      assertContract('getBot', response);
      assert.equal(response.json().code, 'not_found');
      assert.match(response.json().detail, new RegExp(reference));
    }
  });

  test('a reference that can be neither an id nor a name is not found either', async () => {
    for (const id of ['x', '123;', "1' or '1'='1", `urn:uuid:${randomUUID()}`, 'a'.repeat(41)]) {
      const response = await t.app.inject({ url: `/api/bots/${encodeURIComponent(id)}` });
      assert.equal(response.statusCode, 404, id);
      assertContract('getBot', response);
    }
  });
});
