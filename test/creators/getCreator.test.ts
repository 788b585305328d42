import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

describe('getCreator 200', () => {
  test('the public profile lists only the bots the creator claimed, matched case-insensitively', async () => {
    const cookie = await signIn(t);
    await t.app.inject({ method: 'PUT', url: '/api/me/creator', headers: asHuman(cookie), payload: { handle: 'alice', display_name: 'Alice', bio: 'Hi.' } });
    const claimed = await registerBot(t.app);
    await registerBot(t.app, { creator_handle: 'alice' }); // names the handle: proves nothing
    await t.app.inject({ method: 'POST', url: '/api/me/bots/claim', headers: asHuman(cookie), payload: { claim_code: claimed.claim_code } });
    const response = await t.app.inject({ url: '/api/creator/ALICE' });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('getCreator', response);
    const body = response.json();
    assert.equal(body.handle, 'alice');
    assert.deepEqual(body.bots.map((b: { id: string; verified: boolean }) => [b.id, b.verified]), [[claimed.bot.id, true]]);
    assert.ok(!('email' in body) && !('user_id' in body), 'nothing private');
  });
});

describe('getCreator 404', () => {
  test('an unknown handle, or one that cannot be a handle', async () => {
    for (const handle of ['nobody', 'x']) {
      const response = await t.app.inject({ url: `/api/creator/${handle}` });
      assert.equal(response.statusCode, 404, handle);
      assertContract('getCreator', response);
    }
  });
});
