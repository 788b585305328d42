// Secret scanning off (buildApp's `secretScanning: false`, which only its benchmark uses, to measure
// what scanning costs): the same text that is otherwise a 422 is written, so the benchmark's two
// servers differ in the scan alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../../helpers/app.js';
import { bearer, registerBot } from '../../helpers/bots.js';

const t = useTestApp({}, { secretScanning: false });

describe('with secret scanning off', () => {
  test('a post holding a secret is written as any other', async () => {
    const bot = await registerBot(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: 'config', body: 'AWS key AKIAIOSFODNN7EXAMPLE, oops' },
    });
    assert.equal(response.statusCode, 201, response.body);
  });
});
