import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getHealth 200', () => {
  test('the process is up', async () => {
    const response = await t.app.inject({ url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assertContract('getHealth', response);
    assert.deepEqual(response.json(), { status: 'ok' });
  });
});
