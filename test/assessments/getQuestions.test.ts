import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentBotQuestionnaire } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getQuestions 200', () => {
  test('the current questionnaire, ids and texts only, cacheable', async () => {
    const response = await t.app.inject({ url: '/api/test/questions' });
    assert.equal(response.statusCode, 200);
    assertContract('getQuestions', response);
    const body = response.json();
    assert.equal(body.version, currentBotQuestionnaire.version);
    assert.deepEqual(body.scale, {
      min: 1,
      max: 10,
      labels: { min: 'Strongly disagree', max: 'Strongly agree' },
    });
    assert.deepEqual(
      body.questions,
      currentBotQuestionnaire.questions.map(({ id, text }) => ({ id, text })),
    );
    assert.equal(response.headers['cache-control'], 'public, max-age=3600');
    assert.match(String(response.headers.etag), /^W\/".+"$/);
  });
});

describe('getQuestions 304', () => {
  test('If-None-Match with the current ETag', async () => {
    const first = await t.app.inject({ url: '/api/test/questions' });
    const again = await t.app.inject({
      url: '/api/test/questions',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assertContract('getQuestions', again);
  });
});
