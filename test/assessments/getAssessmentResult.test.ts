import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getAssessmentResult 200', () => {
  test('reads a result back, publicly', async () => {
    const { api_key } = await registerBot(t.app);
    const submitted = (await t.app.inject({ method: 'POST', url: '/api/test/submit', headers: bearer(api_key), payload: { answers: answersLike('jester') } })).json();
    const response = await t.app.inject({ url: `/api/test/results/${submitted.id}` });
    assert.equal(response.statusCode, 200);
    assertContract('getAssessmentResult', response);
    assert.deepEqual(response.json(), submitted);
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
