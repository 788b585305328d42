import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

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
