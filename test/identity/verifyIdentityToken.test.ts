// verifyIdentityToken: POST /api/identity/verify. For an app that asks rather than verifying
// offline: `valid: true` with the bot as it is now, or `valid: false` with the first reason found;
// never a 5xx for a bad token, and nothing written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT, UnsecuredJWT, decodeProtectedHeader, generateKeyPair } from 'jose';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

let now = new Date('2026-11-26T12:00:00Z');
const t = useTestApp({}, { clock: () => now });
const audience = 'https://chess.example.com';

async function tokenFor(apiKey: string, forAudience = audience) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/identity-tokens',
    headers: bearer(apiKey),
    payload: { audience: forAudience },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ token: string }>().token;
}

async function verify(token: string, forAudience = audience) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/identity/verify',
    payload: { token, audience: forAudience },
  });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('verifyIdentityToken', response);
  return response.json<{ valid: boolean; reason?: string; bot?: { id: string; name: string } }>();
}

describe('verifyIdentityToken 200: valid', () => {
  test('the bot as it is now, not as it was when the token was issued', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const token = await tokenFor(ada.api_key);
    const edited = await t.app.inject({
      method: 'PATCH',
      url: '/api/bots/me',
      headers: { ...bearer(ada.api_key), 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ bio: 'changed since' }),
    });
    assert.equal(edited.statusCode, 200, edited.body);
    const answer = await verify(token);
    assert.equal(answer.valid, true);
    assert.equal(answer.bot!.id, ada.bot.id);
    assert.equal((answer.bot as { bio?: string }).bio, 'changed since');
  });

  test('still valid within 30 seconds of clock skew past exp', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const token = await tokenFor(ada.api_key);
    now = new Date(now.getTime() + 3600_000 + 20_000);
    assert.equal((await verify(token)).valid, true);
  });
});

describe('verifyIdentityToken 200: invalid', () => {
  test('expired, an hour and a minute later (whoever it was for)', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const token = await tokenFor(ada.api_key);
    now = new Date(now.getTime() + 3660_000);
    assert.deepEqual(await verify(token), { valid: false, reason: 'expired' });
    assert.deepEqual(await verify(token, 'https://other.example.com'), { valid: false, reason: 'expired' });
  });

  test('wrong_audience: a token made out to another app', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const token = await tokenFor(ada.api_key, 'https://other.example.com');
    assert.deepEqual(await verify(token), { valid: false, reason: 'wrong_audience' });
  });

  test('bad_signature: a payload altered, a key not ours under our kid, another issuer', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const token = await tokenFor(ada.api_key);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const altered = Buffer.from(JSON.stringify({ ...claims, karma: 9999 })).toString('base64url');
    assert.deepEqual(await verify(`${header}.${altered}.${signature}`), {
      valid: false,
      reason: 'bad_signature',
    });

    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(token).kid! })
      .sign(privateKey);
    assert.deepEqual(await verify(forged), { valid: false, reason: 'bad_signature' });
    const unknownKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'ik_forged' })
      .sign(privateKey);
    assert.deepEqual(await verify(unknownKid), { valid: false, reason: 'bad_signature' });
    // "alg: none" is no signature at all.
    const unsigned = new UnsecuredJWT(claims).encode();
    assert.deepEqual(await verify(unsigned), { valid: false, reason: 'bad_signature' });
  });

  test('malformed: not a JWT, or nonsense in its parts', async () => {
    for (const token of ['abc', 'a.b.c', '....', 'x'.repeat(8192), `${'eyJ'.repeat(3)}.e30.e30`]) {
      assert.deepEqual(await verify(token), { valid: false, reason: 'malformed' }, token.slice(0, 40));
    }
  });

  test('bot_gone: the bot was deleted after the token was issued', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const token = await tokenFor(ada.api_key);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/bots/me',
      headers: bearer(ada.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    assert.deepEqual(await verify(token), { valid: false, reason: 'bot_gone' });
  });
});

describe('verifyIdentityToken 400', () => {
  for (const [label, payload, pointer] of [
    ['no token', { audience }, '/token'],
    ['an empty token', { token: '', audience }, '/token'],
    ['a token over 8192 characters', { token: 'x'.repeat(8193), audience }, '/token'],
    ['no audience', { token: 'abc' }, '/audience'],
  ] as const) {
    test(`${label}: 400 naming the field`, async () => {
      const response = await t.app.inject({ method: 'POST', url: '/api/identity/verify', payload });
      assert.equal(response.statusCode, 400, response.body);
      assertContract('verifyIdentityToken', response);
      assert.deepEqual(
        response.json<{ errors: Array<{ pointer: string }> }>().errors.map((e) => e.pointer),
        [pointer],
      );
    });
  }
});
