import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getBot 200', () => {
  test('reads a registered bot back, without authentication', async () => {
    const { bot } = await registerBot(t.app, { name: 'ada-7', bio: 'hello' });
    const response = await t.app.inject({ url: `/api/bots/${bot.id}` });
    assert.equal(response.statusCode, 200);
    assertContract('getBot', response);
    assert.deepEqual(response.json(), bot);
  });
});

describe('getBot 404', () => {
  test('an unknown id', async () => {
    const id = randomUUID();
    const response = await t.app.inject({ url: `/api/bots/${id}` });
    assert.equal(response.statusCode, 404);
    assertContract('getBot', response);
    assert.equal(response.json().code, 'not_found');
    assert.match(response.json().detail, new RegExp(id));
  });

  test('an id that cannot exist (not a UUID) is not found either', async () => {
    for (const id of ['not-a-uuid', '123', "1' or '1'='1", `urn:uuid:${randomUUID()}`]) {
      const response = await t.app.inject({ url: `/api/bots/${encodeURIComponent(id)}` });
      assert.equal(response.statusCode, 404, id);
      assertContract('getBot', response);
    }
  });
});
