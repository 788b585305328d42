import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentCreatorQuestionnaire } from '../../src/assessments/scoring.js';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getCreatorQuestions 200', () => {
  test("the creators' questionnaire, publicly, without its scoring keys", async () => {
    const response = await t.app.inject({ url: '/api/creator-test/questions' });
    assert.equal(response.statusCode, 200);
    assertContract('getCreatorQuestions', response);
    const body = response.json();
    assert.equal(body.version, currentCreatorQuestionnaire.version);
    assert.ok(body.questions.length >= 36, 'several dozen statements');
    assert.deepEqual(
      body.questions,
      currentCreatorQuestionnaire.questions.map(({ id, text }) => ({ id, text })),
    );
    assert.ok(
      !response.body.includes('"trait"') &&
        !response.body.includes('reverse') &&
        !response.body.includes('prototype'),
    );
    assert.equal(response.headers['cache-control'], 'public, max-age=3600');
  });
});

describe('getCreatorQuestions 304', () => {
  test('its ETag answers a conditional request with 304', async () => {
    const first = await t.app.inject({ url: '/api/creator-test/questions' });
    const etag = first.headers.etag as string;
    assert.ok(etag);
    const again = await t.app.inject({
      url: '/api/creator-test/questions',
      headers: { 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assertContract('getCreatorQuestions', again);
    // The bots' questionnaire is another representation.
    const bots = await t.app.inject({ url: '/api/test/questions', headers: { 'if-none-match': etag } });
    assert.equal(bots.statusCode, 200);
  });
});
