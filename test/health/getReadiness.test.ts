import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getReadiness 200', () => {
  test('the database answers', async () => {
    const response = await t.app.inject({ url: '/readyz' });
    assert.equal(response.statusCode, 200);
    assertContract('getReadiness', response);
    assert.deepEqual(response.json(), { status: 'ready' });
  });
});
// getReadiness 503 is in test/platform/http/errors.test.ts, with the other unreachable-database cases.
