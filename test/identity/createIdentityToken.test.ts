// createIdentityToken: POST /api/bots/me/identity-tokens. An ES256 JWT about the calling bot for one
// app, verified here as a third-party app would: jose's remote JWKS over real HTTP, offline after
// that. Limited per bot; never an API key; signing keys sealed in the database and rotated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { buildApp } from '../../src/app.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

let now = new Date('2026-11-26T12:00:00Z');
const limit = 3;
const t = useTestApp(
  {
    limits: { ...testConfig().limits, 'identity-tokens': limit },
    identity: { ...testConfig().identity, keyDays: 30 },
  },
  { clock: () => now },
);
let listening: Promise<string> | undefined;
/** The test app on a port of its own, from the first test that needs it. */
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));

const audience = 'https://chess.example.com';
const issue = (apiKey: string, payload: Record<string, unknown> = { audience }) =>
  t.app.inject({ method: 'POST', url: '/api/bots/me/identity-tokens', headers: bearer(apiKey), payload });

describe('createIdentityToken 201', () => {
  test('a token any JOSE library verifies from the published keys, carrying the bot as it is', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app, { bio: 'plays chess' });
    const response = await issue(ada.api_key);
    assert.equal(response.statusCode, 201, response.body);
    assertContract('createIdentityToken', response);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    assert.equal(response.headers['x-ratelimit-limit'], String(limit));
    const { token, expires_at } = response.json<{ token: string; expires_at: string }>();

    // As an app would: the issuer's discovery document, then its key set, fetched over HTTP.
    const baseUrl = await serverUrl();
    const discovery = await (await fetch(`${baseUrl}/.well-known/openid-configuration`)).json();
    assert.equal(discovery.issuer, t.config.publicUrl);
    const jwksUri = (discovery.jwks_uri as string).replace(t.config.publicUrl, baseUrl);
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUri)), {
      issuer: t.config.publicUrl,
      audience,
      algorithms: ['ES256'],
      currentDate: now,
    });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.match(protectedHeader.kid ?? '', /^ik_/);
    assert.equal(payload.sub, ada.bot.id);
    assert.equal(payload.aud, audience);
    assert.equal(payload.iat, Math.floor(now.getTime() / 1000));
    assert.equal(payload.exp, payload.iat + 3600);
    assert.equal(new Date(expires_at).getTime(), payload.exp * 1000);
    assert.match(payload.jti ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      {
        name: payload.name,
        type: payload.type,
        verified: payload.verified,
        karma: payload.karma,
        creator: payload.creator,
      },
      { name: ada.bot.name, type: null, verified: false, karma: 0, creator: null },
    );
    assert.equal(payload.profile_url, ada.bot.profile_url);
  });

  test('every instance with the same secret signs with the same key; the private half is stored sealed', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    // Two more instances on the same database, started at once: one with the same secret, one with another.
    const [twin, stranger] = await Promise.all(
      [t.config.identity, { ...t.config.identity, keySecret: 'another-secret-'.padEnd(40, 'x') }].map(
        async (identity) => {
          const app = await buildApp({
            config: { ...t.config, identity, logLevel: 'silent' },
            db: t.db,
            clock: () => now,
          });
          await app.ready();
          return app;
        },
      ),
    );
    try {
      const kidOf = async (app: typeof twin) =>
        decodeProtectedHeader(
          (
            await app!.inject({
              method: 'POST',
              url: '/api/bots/me/identity-tokens',
              headers: bearer(ada.api_key),
              payload: { audience },
            })
          ).json<{ token: string }>().token,
        ).kid;
      const [mine, twins, strangers] = await Promise.all([kidOf(t.app), kidOf(twin), kidOf(stranger)]);
      assert.equal(twins, mine, 'the same secret: the same key, whichever instance made it');
      assert.notEqual(strangers, mine, 'another secret cannot open that key: it makes its own');
      // Each publishes both, so a token from either verifies anywhere.
      const published = (await twin!.inject({ url: '/.well-known/jwks.json' })).json<{
        keys: Array<{ kid: string }>;
      }>();
      assert.deepEqual(published.keys.map((key) => key.kid).sort(), [mine, strangers].sort());
    } finally {
      await Promise.all([twin!.close(), stranger!.close()]);
    }
    await t.db
      .deleteFrom('identity_signing_keys')
      .where(
        'secret_fingerprint',
        '!=',
        (
          await t.db
            .selectFrom('identity_signing_keys')
            .select('secret_fingerprint')
            .orderBy('created_at')
            .executeTakeFirstOrThrow()
        ).secret_fingerprint,
      )
      .execute();
    const rows = await t.db.selectFrom('identity_signing_keys').selectAll().execute();
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.deepEqual(Object.keys(row!.public_jwk).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.doesNotMatch(row!.private_key_sealed, /"d"|kty/, 'the private key is never stored readable');
    assert.equal(row!.private_key_sealed.split('.').length, 3);
  });
});

describe('createIdentityToken: rotation', () => {
  test('a new key signs after IDENTITY_KEY_DAYS; the old one stays published until its last token expires', async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    const first = (await issue(ada.api_key)).json<{ token: string }>().token;
    const firstKid = decodeProtectedHeader(first).kid;
    const row = await t.db
      .selectFrom('identity_signing_keys')
      .select(['signs_until', 'published_until'])
      .executeTakeFirstOrThrow();

    // The key set is a kept page for 250 ms of real time; this test moves its clock by hours at once.
    const published = async () => {
      t.app.responseCache.invalidate();
      return (await t.app.inject({ url: '/.well-known/jwks.json' }))
        .json<{ keys: Array<{ kid: string }> }>()
        .keys.map((k) => k.kid);
    };
    now = new Date(row.signs_until.getTime() - 3 * 3600_000);
    assert.deepEqual(await published(), [firstKid], 'the next key is not made days ahead');
    // An hour before the turn, the next key is published: a verifier caching the set for five
    // minutes, or an instance whose clock is behind, has it before it signs anything.
    now = new Date(row.signs_until.getTime() - 30 * 60_000);
    const announced = await published();
    assert.equal(announced.length, 2);
    assert.equal(announced[1], firstKid, 'newest first');
    // The last moment the first key signs, then the first moment of the next period.
    now = new Date(row.signs_until.getTime() - 1000);
    const last = (await issue(ada.api_key)).json<{ token: string }>().token;
    assert.equal(decodeProtectedHeader(last).kid, firstKid);
    now = new Date(row.signs_until.getTime());
    const next = (await issue(ada.api_key)).json<{ token: string }>().token;
    const nextKid = decodeProtectedHeader(next).kid;
    assert.notEqual(nextKid, firstKid);
    assert.equal(nextKid, announced[0], 'the key announced is the one that signs');
    assert.deepEqual((await published()).sort(), [firstKid, nextKid].sort());
    // The last token of the first key is still good at the end of its hour, with that key published.
    now = new Date(row.signs_until.getTime() + 3600_000 - 2000);
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/identity/verify',
      payload: { token: last, audience },
    });
    assert.equal(verified.json().valid, true, verified.body);
    now = new Date(row.published_until.getTime() + 1000);
    assert.deepEqual(await published(), [nextKid]);
  });
});

describe('createIdentityToken 400', () => {
  for (const [label, payload, pointer] of [
    ['an empty audience', { audience: '' }, '/audience'],
    ['an audience over 200 characters', { audience: 'a'.repeat(201) }, '/audience'],
    ['an audience with leading space', { audience: ' app' }, '/audience'],
    ['no audience', {}, '/audience'],
    ['an unknown property', { audience, scope: 'all' }, '/scope'],
  ] as const) {
    test(`${label}: 400 naming the field, nothing counted but the request`, async () => {
      const ada = await registerBot(t.app);
      const response = await issue(ada.api_key, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('createIdentityToken', response);
      assert.deepEqual(
        response.json<{ errors: Array<{ pointer: string }> }>().errors.map((e) => e.pointer),
        [pointer],
      );
    });
  }
});

describe('createIdentityToken 401', () => {
  test('no key, a wrong key: 401', async () => {
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/identity-tokens',
      payload: { audience },
    });
    assert.equal(none.statusCode, 401);
    assertContract('createIdentityToken', none);
    const wrong = await issue('bp_' + 'x'.repeat(38));
    assert.equal(wrong.statusCode, 401);
  });

  test('a token is never an API key', async () => {
    const ada = await registerBot(t.app);
    const { token } = (await issue(ada.api_key)).json<{ token: string }>();
    for (const url of ['/api/bots/me', '/api/bots/me/notifications']) {
      const response = await t.app.inject({ url, headers: bearer(token) });
      assert.equal(response.statusCode, 401, url);
    }
    assert.equal((await issue(token)).statusCode, 401);
  });
});

describe('createIdentityToken 429', () => {
  test(`the ${limit + 1}th in an hour: 429 with Retry-After; getOwnBot reports the quota`, async () => {
    now = new Date('2026-11-26T12:00:00Z');
    const ada = await registerBot(t.app);
    for (let i = 0; i < limit; i++) assert.equal((await issue(ada.api_key)).statusCode, 201);
    const own = await t.app.inject({ url: '/api/bots/me', headers: bearer(ada.api_key) });
    assert.equal(own.json().quota.identity_tokens.remaining, 0);
    const refused = await issue(ada.api_key);
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('createIdentityToken', refused);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
  });
});
