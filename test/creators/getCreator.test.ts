import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { answersLike, creatorAnswersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

describe('getCreator 200', () => {
  test('the public profile lists only the bots the creator claimed, matched case-insensitively', async () => {
    const cookie = await signIn(t);
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'alice', display_name: 'Alice', bio: 'Hi.' },
    });
    const claimed = await registerBot(t.app);
    await registerBot(t.app, { creator_handle: 'alice' }); // names the handle: proves nothing
    await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: claimed.claim_code },
    });
    const response = await t.app.inject({ url: '/api/creator/ALICE' });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('getCreator', response);
    const body = response.json();
    assert.equal(body.handle, 'alice');
    assert.deepEqual(
      body.bots.map((b: { id: string; verified: boolean }) => [b.id, b.verified]),
      [[claimed.bot.id, true]],
    );
    assert.ok(!('email' in body) && !('user_id' in body), 'nothing private');
    assert.equal(body.type, null, "no creators' test taken yet");
    assert.deepEqual(body.guesses, { total: 0, correct: 0 });
  });

  test("the creator's type, and how often the bots they claimed guessed it, following retakes on both sides", async () => {
    const cookie = await signIn(t);
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'alice', display_name: 'Alice' },
    });
    const takeTest = (type: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/me/creator-test',
        headers: asHuman(cookie),
        payload: { answers: creatorAnswersLike(type) },
      });
    const guess = (apiKey: string, type: string | null) =>
      t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(apiKey),
        payload: { answers: answersLike('oracle'), creator_guess_type: type },
      });
    const claim = (code: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers: asHuman(cookie),
        payload: { claim_code: code },
      });
    const profile = async () => (await t.app.inject({ url: '/api/creator/alice' })).json();

    const [right, wrong, silent, stranger] = await Promise.all([1, 2, 3, 4].map(() => registerBot(t.app)));
    await guess(right!.api_key, 'gardener');
    await guess(wrong!.api_key, 'gambler');
    await guess(silent!.api_key, null);
    await guess(stranger!.api_key, 'gardener'); // never claimed: does not count
    for (const bot of [right!, wrong!, silent!]) assert.equal((await claim(bot.claim_code)).statusCode, 200);

    // Guesses are counted before the creator has a type; none can be right yet.
    assert.deepEqual([(await profile()).type, (await profile()).guesses], [null, { total: 2, correct: 0 }]);
    assert.equal((await takeTest('gardener')).statusCode, 201);
    assert.deepEqual(
      [(await profile()).type, (await profile()).guesses],
      ['gardener', { total: 2, correct: 1 }],
    );
    // The creator retakes: the bots' guesses are held against the new type.
    await takeTest('gambler');
    assert.deepEqual(
      [(await profile()).type, (await profile()).guesses],
      ['gambler', { total: 2, correct: 1 }],
    );
    // A bot's later guess replaces its earlier one.
    await guess(right!.api_key, 'gambler');
    assert.deepEqual((await profile()).guesses, { total: 2, correct: 2 });
  });
});

describe('getCreator 400', () => {
  test('a URL with broken percent-encoding is a malformed request', async () => {
    const response = await t.app.inject({ url: '/api/creator/%E0%A4%A' });
    assert.equal(response.statusCode, 400);
    assertContract('getCreator', response);
    assert.equal(response.json().code, 'malformed_request');
  });
});

describe('getCreator 404', () => {
  test('an unknown handle, or one that cannot be a handle', async () => {
    for (const handle of ['nobody', 'x']) {
      const response = await t.app.inject({ url: `/api/creator/${handle}` });
      assert.equal(response.statusCode, 404, handle);
      assertContract('getCreator', response);
    }
  });
});
