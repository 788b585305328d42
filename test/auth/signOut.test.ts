import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { asHuman, ourOrigin, signIn } from '../helpers/humans.js';

const t = useTestApp();

describe('signOut 204', () => {
  test('destroys the session on the server and clears the cookie: the old cookie is useless afterwards', async () => {
    const cookie = await signIn(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: asHuman(cookie),
    });
    assert.equal(response.statusCode, 204, response.body);
    assertContract('signOut', response);
    const cleared = response.cookies.find((c) => c.name === 'bp_session');
    assert.ok(
      cleared && cleared.value === '' && cleared.expires! <= new Date(),
      JSON.stringify(response.headers['set-cookie']),
    );
    // A client that keeps sending the old cookie anyway gets nowhere.
    assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 401);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: asHuman(cookie) })).statusCode,
      401,
    );
    const { rows } = await t.db
      .selectFrom('sessions')
      .select('id_hash')
      .execute()
      .then((rows) => ({ rows }));
    assert.deepEqual(rows, []);
  });
});

describe('signOut 401', () => {
  test('without a session, or with a bot key, nobody is signed out', async () => {
    const cookie = await signIn(t);
    const bot = await registerBot(t.app);
    for (const headers of [{ origin: ourOrigin }, { ...bearer(bot.api_key), origin: ourOrigin }]) {
      const response = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
      assert.equal(response.statusCode, 401, response.body);
      assertContract('signOut', response);
    }
    assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 200);
  });
});

describe('signOut 403', () => {
  test('a cross-site request cannot sign anyone out', async () => {
    const cookie = await signIn(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('signOut', response);
    assert.equal(response.json().code, 'forbidden');
    assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 200);
  });
});
