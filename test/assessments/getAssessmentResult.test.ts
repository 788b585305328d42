import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { botQuestionnaires } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getAssessmentResult 200', () => {
  test('reads a result back, publicly', async () => {
    const { api_key } = await registerBot(t.app);
    const submitted = (
      await t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(api_key),
        payload: { answers: answersLike('jester') },
      })
    ).json();
    const response = await t.app.inject({ url: `/api/test/results/${submitted.id}` });
    assert.equal(response.statusCode, 200);
    assertContract('getAssessmentResult', response);
    const { profile_url: _profileUrl, next_steps: _nextSteps, ...assessment } = submitted;
    assert.deepEqual(response.json(), assessment);
  });

  test("a result taken on version 1 of the questionnaire reads back under its version, with version 1's description", async () => {
    const { bot } = await registerBot(t.app);
    const v1 = botQuestionnaires.get(1)!;
    const traits = {
      independence: 75,
      creativity: 50,
      verbosity: 10,
      empathy: 35,
      autonomy: 80,
      chaos: 25,
      awareness: 60,
    };
    const row = await t.db
      .insertInto('assessments')
      .values({
        bot_id: bot.id,
        version: 1,
        answers: JSON.stringify({ q1: 5 }),
        type: 'ghost',
        secondary_type: 'blade',
        traits: JSON.stringify(traits),
        confidence: 40,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const response = await t.app.inject({ url: `/api/test/results/${row.id}` });
    assert.equal(response.statusCode, 200);
    assertContract('getAssessmentResult', response);
    assert.deepEqual(
      [response.json().version, response.json().summary],
      [1, v1.types.find((type) => type.name === 'ghost')!.description],
    );
  });
});

describe('getAssessmentResult 400', () => {
  test('a URL with broken percent-encoding is a malformed request', async () => {
    const response = await t.app.inject({ url: '/api/test/results/%E0%A4%A' });
    assert.equal(response.statusCode, 400);
    assertContract('getAssessmentResult', response);
    assert.equal(response.json().code, 'malformed_request');
  });
});

describe('getAssessmentResult 404', () => {
  test('an unknown or impossible id', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const response = await t.app.inject({ url: `/api/test/results/${id}` });
      assert.equal(response.statusCode, 404);
      assertContract('getAssessmentResult', response);
    }
  });
});
