import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentCreatorQuestionnaire } from '../../src/assessments/scoring.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { creatorAnswersLike } from '../helpers/assessments.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp({
  limits: { ...testConfig().limits, assessments: 3 },
});

function submit(cookie: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/me/creator-test',
    headers: { ...asHuman(cookie), ...headers },
    payload: payload as object,
  });
}

async function results() {
  return (await t.db.selectFrom('creator_assessments').selectAll().execute()).length;
}

describe('submitCreatorAssessment 201', () => {
  test("scores the answers and makes the result the creator's type, on their profile and in getMe", async () => {
    const cookie = await signInAsCreator(t, 'alice');
    const response = await submit(cookie, { answers: creatorAnswersLike('alchemist') });
    assert.equal(response.statusCode, 201, response.body);
    assertContract('submitCreatorAssessment', response);
    const result = response.json();
    assert.deepEqual([result.type, result.version], ['alchemist', currentCreatorQuestionnaire.version]);
    assert.equal(
      result.summary,
      currentCreatorQuestionnaire.types.find((type) => type.name === 'alchemist')!.description,
    );
    assert.ok(result.traits.curiosity > 80);
    assert.equal((await t.app.inject({ url: '/api/creator/alice' })).json().type, 'alchemist');
    assert.equal(
      (await t.app.inject({ url: '/api/me', headers: { cookie } })).json().creator.type,
      'alchemist',
    );
    // X-RateLimit headers: the creators' test is limited per signed-in human.
    assert.deepEqual(
      [response.headers['x-ratelimit-limit'], response.headers['x-ratelimit-remaining']],
      ['3', '2'],
    );
  });

  test('a retake keeps history; the latest result is the type', async () => {
    const cookie = await signInAsCreator(t, 'alice');
    await submit(cookie, { answers: creatorAnswersLike('overseer') });
    await submit(cookie, { answers: creatorAnswersLike('patron') });
    assert.equal((await t.app.inject({ url: '/api/creator/alice' })).json().type, 'patron');
    assert.equal(await results(), 2);
  });
});

describe('submitCreatorAssessment 400', () => {
  test('names every missing, unknown and out-of-range answer, and stores nothing', async () => {
    const cookie = await signInAsCreator(t, 'alice');
    const answers: Record<string, unknown> = creatorAnswersLike('forge');
    delete answers.q2;
    answers.q43 = 5;
    answers.q5 = 0;
    answers.q6 = 'ten';
    const response = await submit(cookie, { answers });
    assert.equal(response.statusCode, 400);
    assertContract('submitCreatorAssessment', response);
    assert.deepEqual(
      response
        .json()
        .errors.map((e: { pointer: string }) => e.pointer)
        .sort(),
      ['/answers/q2', '/answers/q43', '/answers/q5', '/answers/q6'],
    );
    // The bots' questionnaire is not the creators'.
    const bots = await submit(cookie, {
      answers: Object.fromEntries(Array.from({ length: 56 }, (_, i) => [`q${i + 1}`, 5])),
    });
    assert.equal(bots.statusCode, 400);
    assert.equal(await results(), 0);
    assert.equal((await t.app.inject({ url: '/api/creator/alice' })).json().type, null);
  });
});

describe('submitCreatorAssessment 401', () => {
  test('a session is required (see also test/auth/cookieAuth.test.ts)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/me/creator-test',
      headers: { origin: 'http://bots.test' },
      payload: { answers: creatorAnswersLike('forge') },
    });
    assert.equal(response.statusCode, 401);
    assertContract('submitCreatorAssessment', response);
  });
});

describe('submitCreatorAssessment 403', () => {
  test('from another origin, like every state change with a session', async () => {
    const cookie = await signInAsCreator(t, 'alice');
    const response = await submit(
      cookie,
      { answers: creatorAnswersLike('forge') },
      { origin: 'https://evil.example' },
    );
    assert.equal(response.statusCode, 403);
    assertContract('submitCreatorAssessment', response);
    assert.equal(await results(), 0);
  });
});

describe('submitCreatorAssessment 409', () => {
  test('a creator profile comes first', async () => {
    const cookie = await signIn(t);
    const response = await submit(cookie, { answers: creatorAnswersLike('gambler') });
    assert.equal(response.statusCode, 409);
    assertContract('submitCreatorAssessment', response);
    assert.equal(response.json().code, 'creator_required');
    assert.equal(await results(), 0);
  });
});

describe('submitCreatorAssessment 429', () => {
  test("limited per signed-in human, like a bot's assessments; another human is not affected", async () => {
    const cookie = await signInAsCreator(t, 'alice');
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await submit(cookie, { answers: creatorAnswersLike('forge') })).statusCode);
    assert.deepEqual(statuses, [201, 201, 201, 429]);
    const refused = await submit(cookie, { answers: creatorAnswersLike('forge') });
    assertContract('submitCreatorAssessment', refused);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    const other = await signInAsCreator(t, 'bob');
    assert.equal((await submit(other, { answers: creatorAnswersLike('forge') })).statusCode, 201);
  });

  test('the page form (/creator-test) counts against the same limit: ten posts in a row save three', async () => {
    const cookie = await signInAsCreator(t, 'carol');
    const form = () =>
      t.app.inject({
        method: 'POST',
        url: '/creator-test',
        headers: { ...asHuman(cookie), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(
          Object.entries(creatorAnswersLike('gardener')).map(([id, answer]) => [id, String(answer)]),
        ).toString(),
      });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await form()).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    assert.equal(await results(), 3);
    // One count for both ways in: the API refuses too.
    assert.equal((await submit(cookie, { answers: creatorAnswersLike('forge') })).statusCode, 429);
  });
});
