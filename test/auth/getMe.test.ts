import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn, uniqueEmail } from '../helpers/humans.js';

const t = useTestApp();

describe('getMe 200', () => {
  test('the signed-in user, with their creator profile once they have one', async () => {
    const email = uniqueEmail();
    const cookie = await signIn(t, email);
    const before = await t.app.inject({ url: '/api/me', headers: { cookie } });
    assert.equal(before.statusCode, 200, before.body);
    assertContract('getMe', before);
    assert.equal(before.json().user.email, email);
    assert.equal(before.json().creator, null);

    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'Alice', display_name: 'Alice' },
    });
    const after = await t.app.inject({ url: '/api/me', headers: { cookie } });
    assert.equal(after.json().user.id, before.json().user.id);
    assert.equal(after.json().creator.handle, 'alice');
  });

  test('the same address signs in as the same user, whatever its case', async () => {
    const email = uniqueEmail();
    const first = await t.app.inject({ url: '/api/me', headers: { cookie: await signIn(t, email) } });
    const second = await t.app.inject({
      url: '/api/me',
      headers: { cookie: await signIn(t, email.toUpperCase()) },
    });
    assert.equal(first.json().user.id, second.json().user.id);
  });
});

describe('getMe 401', () => {
  test('without a session, with a forged cookie, or with a bot key', async () => {
    const bot = await registerBot(t.app);
    for (const headers of [
      {},
      { cookie: 'bp_session=forged.value' },
      { authorization: `Bearer ${bot.api_key}` },
    ]) {
      const response = await t.app.inject({ url: '/api/me', headers });
      assert.equal(response.statusCode, 401, JSON.stringify(headers));
      assertContract('getMe', response);
    }
  });
});
