import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn, uniqueEmail } from '../helpers/humans.js';
import { bearer, registerBot } from '../helpers/bots.js';

const t = useTestApp();

describe('signOutEverywhere 204', () => {
  test("ends every session of the person, in every browser, and no one else's", async () => {
    const email = uniqueEmail();
    const [laptop, phone, tablet] = [await signIn(t, email), await signIn(t, email), await signIn(t, email)];
    const someoneElse = await signIn(t);
    for (const cookie of [laptop, phone, tablet])
      assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 200);

    const response = await t.app.inject({
      method: 'DELETE',
      url: '/api/me/sessions',
      headers: asHuman(phone),
    });
    assert.equal(response.statusCode, 204, response.body);
    assertContract('signOutEverywhere', response);
    const cleared = response.cookies.find((c) => c.name === 'bp_session');
    assert.ok(cleared && cleared.value === '', JSON.stringify(response.headers['set-cookie']));
    for (const cookie of [laptop, phone, tablet])
      assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 401);
    assert.equal(
      (await t.app.inject({ url: '/api/me', headers: { cookie: someoneElse } })).statusCode,
      200,
      'other people stay signed in',
    );
    assert.equal(
      await t.db
        .selectFrom('sessions')
        .select('id_hash')
        .execute()
        .then((rows) => rows.length),
      1,
    );
  });
});

describe('signOutEverywhere 401', () => {
  test('without a session, or with a bot key, nothing is ended', async () => {
    const cookie = await signIn(t);
    const bot = await registerBot(t.app);
    for (const headers of [
      { origin: 'http://bots.test' },
      { ...bearer(bot.api_key), origin: 'http://bots.test' },
    ]) {
      const response = await t.app.inject({ method: 'DELETE', url: '/api/me/sessions', headers });
      assert.equal(response.statusCode, 401);
      assertContract('signOutEverywhere', response);
    }
    assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 200);
  });
});

describe('signOutEverywhere 403', () => {
  test('a cross-site request cannot sign anyone out', async () => {
    const cookie = await signIn(t);
    const response = await t.app.inject({
      method: 'DELETE',
      url: '/api/me/sessions',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.equal(response.statusCode, 403);
    assertContract('signOutEverywhere', response);
    assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode, 200);
  });
});
