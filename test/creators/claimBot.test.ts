import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, ourOrigin, signIn, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp();

const claim = (cookie: string, code: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/me/bots/claim',
    headers: asHuman(cookie),
    payload: { claim_code: code },
  });

describe('claimBot 200', () => {
  test("the bot becomes the creator's and verified, everywhere it is shown", async () => {
    const alice = await signInAsCreator(t, 'alice');
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

describe('claimBot 400', () => {
  test('a missing or malformed claim code, or an unknown field, claims nothing', async () => {
    const alice = await signInAsCreator(t, 'alice');
    const bot = await registerBot(t.app);
    for (const payload of [{}, { claim_code: 'nope' }, { claim_code: bot.claim_code, extra: 1 }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers: asHuman(alice),
        payload,
      });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('claimBot', response);
      assert.equal(response.json().code, 'validation_failed');
    }
    assert.equal((await t.app.inject({ url: `/api/bots/${bot.bot.id}` })).json().verified, false);
  });
});

describe('claimBot 401', () => {
  test("a session is required: without one, or with the bot's own key, nothing is claimed", async () => {
    const bot = await registerBot(t.app);
    for (const headers of [{ origin: ourOrigin }, { ...bearer(bot.api_key), origin: ourOrigin }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers,
        payload: { claim_code: bot.claim_code },
      });
      assert.equal(response.statusCode, 401, response.body);
      assertContract('claimBot', response);
    }
    assert.equal((await t.app.inject({ url: `/api/bots/${bot.bot.id}` })).json().verified, false);
  });
});

describe('claimBot 403', () => {
  test('from another origin a valid code claims nothing, and is not spent', async () => {
    const alice = await signInAsCreator(t, 'alice');
    const bot = await registerBot(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: { cookie: alice, origin: 'https://evil.example' },
      payload: { claim_code: bot.claim_code },
    });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('claimBot', response);
    assert.equal(response.json().code, 'forbidden');
    assert.equal((await t.app.inject({ url: `/api/bots/${bot.bot.id}` })).json().verified, false);
    assert.equal((await claim(alice, bot.claim_code)).statusCode, 200, 'the code still works');
  });
});

describe('claimBot 404', () => {
  test('a code no bot was given', async () => {
    const response = await claim(await signInAsCreator(t, 'alice'), 'bpc_' + 'A'.repeat(24));
    assert.equal(response.statusCode, 404);
    assertContract('claimBot', response);
  });
});

describe('claimBot 409', () => {
  test('a code works once: another human reusing it gets 409, and the bot stays with the first', async () => {
    const bot = await registerBot(t.app);
    const [alice, bob] = [await signInAsCreator(t, 'alice'), await signInAsCreator(t, 'bob')];
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
