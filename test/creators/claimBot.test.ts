import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

async function creator(handle: string) {
  const cookie = await signIn(t);
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/me/creator',
    headers: asHuman(cookie),
    payload: { handle, display_name: handle },
  });
  assert.equal(response.statusCode, 200, response.body);
  return cookie;
}

const claim = (cookie: string, code: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/me/bots/claim',
    headers: asHuman(cookie),
    payload: { claim_code: code },
  });

describe('claimBot 200', () => {
  test("the bot becomes the creator's and verified, everywhere it is shown", async () => {
    const alice = await creator('alice');
    const bot = await registerBot(t.app);
    const response = await claim(alice, bot.claim_code);
    assert.equal(response.statusCode, 200, response.body);
    assertContract('claimBot', response);
    assert.equal(response.json().verified, true);
    assert.deepEqual(response.json().creator, { handle: 'alice' });
    const profile = (await t.app.inject({ url: `/api/bots/${bot.bot.id}` })).json();
    assert.equal(profile.verified, true);
    assert.deepEqual(profile.creator, { handle: 'alice' });
    const own = (
      await t.app.inject({ url: '/api/bots/me', headers: { authorization: `Bearer ${bot.api_key}` } })
    ).json();
    assert.equal(own.claimed, true);
  });
});

describe('claimBot 404', () => {
  test('a code no bot was given', async () => {
    const response = await claim(await creator('alice'), 'bpc_' + 'A'.repeat(24));
    assert.equal(response.statusCode, 404);
    assertContract('claimBot', response);
  });
});

describe('claimBot 409', () => {
  test('a code works once: another human reusing it gets 409, and the bot stays with the first', async () => {
    const bot = await registerBot(t.app);
    const [alice, bob] = [await creator('alice'), await creator('bob')];
    const results = await Promise.all([claim(alice, bot.claim_code), claim(bob, bot.claim_code)]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409]);
    const loser = results.find((r) => r.statusCode === 409)!;
    assertContract('claimBot', loser);
    assert.equal(loser.json().code, 'claim_code_used');
    const winner = results.find((r) => r.statusCode === 200)!.json().creator.handle;
    assert.deepEqual((await t.app.inject({ url: `/api/bots/${bot.bot.id}` })).json().creator, {
      handle: winner,
    });
    assert.equal(
      (await claim(winner === 'alice' ? alice : bob, bot.claim_code)).statusCode,
      409,
      'not even twice by the same creator',
    );
  });

  test('claiming needs a creator profile first', async () => {
    const bot = await registerBot(t.app);
    const response = await claim(await signIn(t), bot.claim_code);
    assert.equal(response.statusCode, 409);
    assert.equal(response.json().code, 'creator_required');
    assert.equal((await t.app.inject({ url: `/api/bots/${bot.bot.id}` })).json().verified, false);
  });
});
