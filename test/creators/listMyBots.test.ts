import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

describe('listMyBots 200', () => {
  test('claimed bots, and bots that named the handle but are not claimed yet (pending)', async () => {
    const cookie = await signIn(t);
    const mine = async () => {
      const response = await t.app.inject({ url: '/api/me/bots', headers: { cookie } });
      assert.equal(response.statusCode, 200, response.body);
      assertContract('listMyBots', response);
      return (response.json().items as Array<{ bot: { name: string; verified: boolean }; status: string }>).map((i) => [i.bot.name, i.status, i.bot.verified]);
    };
    assert.deepEqual(await mine(), [], 'no profile yet: nothing');
    const named = await registerBot(t.app, { creator_handle: 'Alice' });
    const other = await registerBot(t.app, { creator_handle: 'bob' });
    await t.app.inject({ method: 'PUT', url: '/api/me/creator', headers: asHuman(cookie), payload: { handle: 'alice', display_name: 'Alice' } });
    assert.deepEqual(await mine(), [[named.bot.name, 'pending', false]]);

    const code = await registerBot(t.app);
    await t.app.inject({ method: 'POST', url: '/api/me/bots/claim', headers: asHuman(cookie), payload: { claim_code: code.claim_code } });
    await t.app.inject({ method: 'POST', url: '/api/me/bots/claim', headers: asHuman(cookie), payload: { claim_code: named.claim_code } });
    assert.deepEqual(await mine(), [
      [named.bot.name, 'claimed', true],
      [code.bot.name, 'claimed', true],
    ]);
    assert.ok(!(await mine()).some(([name]) => name === other.bot.name));
  });
});
