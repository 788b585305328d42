// Request validation comes from openapi.yaml for every operation, before any handler runs: bodies
// strictly, path and query values converted only from plain numerals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../../helpers/app.js';
import { bearer, registerBot } from '../../helpers/bots.js';

const t = useTestApp();

describe('query parameters', () => {
  test('a numeric parameter accepts only a plain decimal numeral within its bounds', async () => {
    for (const limit of [
      '0',
      '101',
      '-1',
      'abc',
      '1e400',
      'Infinity',
      '0x10',
      '%207',
      '7.5',
      '',
      '99999999999999999999',
    ]) {
      const response = await t.app.inject({ url: `/api/feed?limit=${limit}` });
      assert.equal(response.statusCode, 400, `limit=${limit}`);
      const body = response.json();
      assert.equal(body.code, 'validation_failed');
      assert.deepEqual(
        body.errors.map((e: { in: string; pointer: string }) => `${e.in} ${e.pointer}`),
        ['query /limit'],
        `limit=${limit}`,
      );
    }
    for (const limit of ['1', '20', '100']) {
      assert.notEqual(
        (await t.app.inject({ url: `/api/feed?limit=${limit}` })).statusCode,
        400,
        `limit=${limit}`,
      );
    }
  });

  test('an unknown enum value names the allowed ones; unknown parameters are ignored', async () => {
    const response = await t.app.inject({ url: '/api/feed?sort=best' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().errors, [
      { in: 'query', pointer: '/sort', message: 'must be one of hot, new, top' },
    ]);
    assert.notEqual((await t.app.inject({ url: '/api/feed?_=1716' })).statusCode, 400);
  });
});

describe('bodies', () => {
  test('what was sent and is wrong comes before what is missing, so a long list still names it', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(api_key),
      payload: { answers: { q99: 3 }, creator_guess_type: 'not-a-type' },
    });
    assert.equal(response.statusCode, 400);
    const errors: Array<{ pointer: string; message: string }> = response.json().errors;
    assert.equal(errors.length, 20, 'the list is capped');
    const pointers = errors.map((error) => error.pointer);
    assert.ok(pointers.includes('/answers/q99'), pointers.join(' '));
    assert.ok(pointers.includes('/creator_guess_type'), pointers.join(' '));
    const firstMissing = errors.findIndex((error) => error.message === 'is required');
    assert.ok(errors.slice(firstMissing).every((error) => error.message === 'is required'));
  });

  test('every problem is listed once, with a pointer to it', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(api_key),
      payload: { answers: { q1: 3, bogus: 4, q2: 11, q3: 2.5, q4: '5' }, extra: true },
    });
    assert.equal(response.statusCode, 400);
    const errors: Array<{ pointer: string }> = response.json().errors;
    for (const expected of [
      { in: 'body', pointer: '/extra', message: 'is not a known property' },
      { in: 'body', pointer: '/answers/bogus', message: 'is not a known property' },
      { in: 'body', pointer: '/answers/q2', message: 'must be 10 or less' },
      { in: 'body', pointer: '/answers/q3', message: 'must be a whole number' },
      { in: 'body', pointer: '/answers/q4', message: 'must be a whole number' },
      { in: 'body', pointer: '/answers/q5', message: 'is required' },
    ]) {
      assert.deepEqual(
        errors.find((e) => e.pointer === expected.pointer),
        expected,
      );
    }
    assert.equal(new Set(errors.map((e) => e.pointer)).size, errors.length, 'one problem per location');
  });

  test('authentication comes before validation: an invalid body without a key is a 401', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      payload: { nonsense: true },
    });
    assert.equal(response.statusCode, 401);
  });
});
