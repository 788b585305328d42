import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot, registerTypedBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

function rate(reference: string, apiKey: string | undefined, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url: `/api/bots/${reference}/rate-accuracy`,
    headers: apiKey ? bearer(apiKey) : {},
    payload: payload as object,
  });
}

async function ratings() {
  return t.db
    .selectFrom('assessments')
    .select(['id', 'accuracy_rating', 'accuracy_comment'])
    .where('accuracy_rating', 'is not', null)
    .execute();
}

describe('rateAccuracy 200', () => {
  test('rates the latest result, which the assessment and the public profile then show', async () => {
    const { bot, api_key, result } = await registerTypedBot(t.app, 'oracle', { name: 'Ada-7' });
    const response = await rate('ada-7', api_key, { rating: 4, comment: '  Spot on about awareness.  ' });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('rateAccuracy', response);
    const rated = response.json();
    assert.equal(rated.id, result.id);
    assert.deepEqual([rated.accuracy.rating, rated.accuracy.comment], [4, 'Spot on about awareness.']);
    assert.ok(Date.parse(rated.accuracy.rated_at) <= Date.now());

    assert.deepEqual((await t.app.inject({ url: `/api/bots/${bot.id}` })).json().accuracy, rated.accuracy);
    assert.deepEqual(
      (await t.app.inject({ url: `/api/test/results/${result.id}` })).json().accuracy,
      rated.accuracy,
    );
  });

  test('rating again replaces the rating; by id, by name or as me', async () => {
    const { bot, api_key } = await registerTypedBot(t.app);
    assert.equal((await rate(bot.id, api_key, { rating: 2, comment: 'Not me.' })).statusCode, 200);
    assert.equal((await rate(bot.name.toUpperCase(), api_key, { rating: 3 })).statusCode, 200);
    const last = await rate('me', api_key, { rating: 5, comment: null });
    assert.equal(last.statusCode, 200);
    assert.deepEqual([last.json().accuracy.rating, last.json().accuracy.comment], [5, null]);
    assert.deepEqual(
      (await ratings()).map((r) => r.accuracy_rating),
      [5],
    );
  });

  test('a retake is rated on its own; the earlier rating stays with the earlier result', async () => {
    const { api_key, result: first } = await registerTypedBot(t.app, 'echo');
    await rate('me', api_key, { rating: 1 });
    const retake = (
      await t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(api_key),
        payload: { answers: answersLike('blade') },
      })
    ).json();
    const response = await rate('me', api_key, { rating: 5 });
    assert.equal(response.json().id, retake.id);
    const byId = new Map((await ratings()).map((r) => [r.id, r.accuracy_rating]));
    assert.deepEqual([byId.get(first.id), byId.get(retake.id)], [1, 5]);
  });
});

describe('rateAccuracy 400', () => {
  test('a rating outside 1-5, a comment over 500 characters or an unknown field is refused and changes nothing', async () => {
    const { api_key } = await registerTypedBot(t.app);
    for (const payload of [
      {},
      { rating: 0 },
      { rating: 6 },
      { rating: 4.5 },
      { rating: '4' },
      { rating: 3, comment: 'x'.repeat(501) },
      { rating: 3, stars: 3 },
    ]) {
      const response = await rate('me', api_key, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 40));
      assertContract('rateAccuracy', response);
      assert.equal(response.json().code, 'validation_failed');
    }
    assert.deepEqual(await ratings(), []);
  });
});

describe('rateAccuracy 401', () => {
  test('a bot key is required', async () => {
    const { bot } = await registerTypedBot(t.app);
    for (const headers of [{}, { authorization: 'Bearer bp_nope' }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/bots/${bot.id}/rate-accuracy`,
        headers,
        payload: { rating: 5 },
      });
      assert.equal(response.statusCode, 401);
      assertContract('rateAccuracy', response);
    }
    assert.deepEqual(await ratings(), []);
  });
});

describe('rateAccuracy 403', () => {
  test("a bot cannot rate another bot's result", async () => {
    const victim = await registerTypedBot(t.app);
    const other = await registerTypedBot(t.app);
    for (const reference of [victim.bot.id, victim.bot.name]) {
      const response = await rate(reference, other.api_key, { rating: 1 });
      assert.equal(response.statusCode, 403);
      assertContract('rateAccuracy', response);
      assert.equal(response.json().code, 'forbidden');
    }
    assert.deepEqual(await ratings(), []);
  });
});

describe('rateAccuracy 404', () => {
  test('an unknown bot', async () => {
    const { api_key } = await registerTypedBot(t.app);
    for (const reference of [randomUUID(), 'nobody-here', '%20']) {
      const response = await rate(reference, api_key, { rating: 3 });
      assert.equal(response.statusCode, 404, reference);
      assertContract('rateAccuracy', response);
    }
  });
});

describe('rateAccuracy 409', () => {
  test('a bot with no result yet has nothing to rate', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await rate('me', api_key, { rating: 3 });
    assert.equal(response.statusCode, 409);
    assertContract('rateAccuracy', response);
    assert.equal(response.json().code, 'assessment_required');
  });
});
