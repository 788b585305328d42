import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentCreatorQuestionnaire } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike, creatorAnswersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp();
const creatorTypes = currentCreatorQuestionnaire.types.map((type) => type.name);

async function creators() {
  const response = await t.app.inject({ url: '/api/analytics/creators' });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('getAnalyticsCreators', response);
  assert.equal(response.headers['cache-control'], 'public, max-age=60');
  return response.json();
}

async function creator(handle: string, type?: string) {
  const cookie = await signInAsCreator(t, handle);
  if (type)
    await t.app.inject({
      method: 'POST',
      url: '/api/me/creator-test',
      headers: asHuman(cookie),
      payload: { answers: creatorAnswersLike(type) },
    });
  return cookie;
}

describe('getAnalyticsCreators 200', () => {
  test('every creator type in enum order, zeros included, and no guesses before anyone guessed', async () => {
    const body = await creators();
    assert.deepEqual(body, {
      creators: 0,
      typed_creators: 0,
      items: creatorTypes.map((type) => ({ type, creators: 0, share: 0 })),
      guesses: { total: 0, correct: 0, accuracy: null },
    });
  });

  test("creators per type, and how well claimed bots guess their typed creator's type", async () => {
    const alice = await creator('alice', 'gardener');
    await creator('bob', 'gardener');
    await creator('carol', 'overseer');
    await creator('dave');
    const bots = await Promise.all([1, 2, 3, 4].map(() => registerBot(t.app)));
    const guesses = ['gardener', 'gardener', 'patron', 'gardener'];
    for (const [i, bot] of bots.entries()) {
      await t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(bot.api_key),
        payload: { answers: answersLike('spark'), creator_guess_type: guesses[i] },
      });
    }
    // Alice claims three; the fourth bot's guess counts for nobody.
    for (const bot of bots.slice(0, 3))
      await t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers: asHuman(alice),
        payload: { claim_code: bot.claim_code },
      });

    const body = await creators();
    assert.deepEqual([body.creators, body.typed_creators], [4, 3]);
    const byType = Object.fromEntries(
      body.items.map((item: { type: string; creators: number; share: number }) => [
        item.type,
        [item.creators, item.share],
      ]),
    );
    assert.deepEqual(
      [byType.gardener, byType.overseer, byType.patron],
      [
        [2, 0.6667],
        [1, 0.3333],
        [0, 0],
      ],
    );
    assert.deepEqual(body.guesses, { total: 3, correct: 2, accuracy: 0.6667 });

    // Alice retakes as a patron: the same guesses are now judged against her new type.
    await t.app.inject({
      method: 'POST',
      url: '/api/me/creator-test',
      headers: asHuman(alice),
      payload: { answers: creatorAnswersLike('patron') },
    });
    assert.deepEqual((await creators()).guesses, { total: 3, correct: 1, accuracy: 0.3333 });
  });
});
