import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentQuestionnaire } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

function submit(apiKey: string | undefined, payload: unknown) {
  return t.app.inject({ method: 'POST', url: '/api/test/submit', headers: apiKey ? bearer(apiKey) : {}, payload: payload as object });
}

async function stored() {
  return (await t.db.selectFrom('assessments').selectAll().execute()).length;
}

describe('submitAssessment 201', () => {
  test('scores the answers, gives the bot its type and traits, and keeps the result readable', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const response = await submit(api_key, { answers: answersLike('ghost') });
    assert.equal(response.statusCode, 201);
    assertContract('submitAssessment', response);
    const result = response.json();
    assert.equal(response.headers.location, `/api/test/results/${result.id}`);
    assert.deepEqual([result.bot_id, result.version, result.type, result.drift], [bot.id, currentQuestionnaire.version, 'ghost', null]);
    assert.equal(result.summary, currentQuestionnaire.types.find((type) => type.name === 'ghost')!.description);

    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.deepEqual([profile.type, profile.secondary_type, profile.traits, profile.stats.assessments], [result.type, result.secondary_type, result.traits, 1]);
  });

  test('two bots with identical answers get identical results', async () => {
    const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
    const answers = answersLike('spark');
    answers.q7 = 3;
    const strip = (r: Record<string, unknown>) => ({ ...r, id: undefined, bot_id: undefined, created_at: undefined });
    const first = (await submit(a.api_key, { answers })).json();
    const second = (await submit(b.api_key, { answers })).json();
    assert.deepEqual(strip(second), strip(first));
  });

  test('a retake keeps history; the latest result is the type, and a change of type is drift', async () => {
    const { bot, api_key } = await registerBot(t.app);
    await submit(api_key, { answers: answersLike('echo') });
    const same = (await submit(api_key, { answers: answersLike('echo') })).json();
    assert.equal(same.drift, null);
    const changed = (await submit(api_key, { answers: answersLike('blade') })).json();
    assert.deepEqual(changed.drift, { from: 'echo', to: 'blade' });
    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.deepEqual([profile.type, profile.stats.assessments], ['blade', 3]);
    assert.equal(await stored(), 3);
  });
});

describe('submitAssessment 400', () => {
  test('one response names every missing, unknown, non-integer and out-of-range answer; nothing is stored', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const answers: Record<string, unknown> = answersLike('oracle');
    delete answers.q4;
    delete answers.q30;
    answers.q50 = 5;
    answers.q7 = 7.5;
    answers.q8 = '6';
    answers.q9 = 0;
    answers.q10 = 11;
    const response = await submit(api_key, { answers });
    assert.equal(response.statusCode, 400);
    assertContract('submitAssessment', response);
    assert.deepEqual(
      response.json().errors.map((e: { pointer: string }) => e.pointer).sort(),
      ['/answers/q10', '/answers/q30', '/answers/q4', '/answers/q50', '/answers/q7', '/answers/q8', '/answers/q9'],
    );
    assert.equal(await stored(), 0);
    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.deepEqual([profile.type, profile.stats.assessments], [null, 0]);
  });

  test('an empty or malformed sheet', async () => {
    const { api_key } = await registerBot(t.app);
    for (const payload of [{}, { answers: {} }, { answers: [] }, { answers: answersLike('oracle'), extra: 1 }]) {
      const response = await submit(api_key, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 60));
      assertContract('submitAssessment', response);
    }
    assert.equal(await stored(), 0);
  });
});

describe('submitAssessment 401', () => {
  test('a submission needs a bot key', async () => {
    const response = await submit(undefined, { answers: answersLike('oracle') });
    assert.equal(response.statusCode, 401);
    assertContract('submitAssessment', response);
    assert.equal(await stored(), 0);
  });
});
