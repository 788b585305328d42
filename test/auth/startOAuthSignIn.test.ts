// The start of the OAuth 2.0 / OpenID Connect redirect flow against a real provider
// (oauth2-mock-server, see test/helpers/oauth.ts): our start redirects to its authorization
// endpoint with state and a PKCE challenge, and the provider answers with a redirect back to our
// callback. The callback is in completeOAuthSignIn.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertContract } from '../helpers/contract.js';
import { useOAuthTestApp } from '../helpers/oauth.js';

// Started before any hook runs: the app's configuration needs the provider's URL.
const { t, provider, authorize } = await useOAuthTestApp();

describe('startOAuthSignIn 302', () => {
  test("redirects to the provider's authorization endpoint, which sends the browser back to our callback with a code", async () => {
    for (const name of ['oidc', 'plain']) {
      const start = await t.app.inject({ url: `/api/auth/oauth/${name}` });
      assert.equal(start.statusCode, 302, start.body);
      assertContract('startOAuthSignIn', start);
      const location = new URL(start.headers.location as string);
      assert.equal(location.origin + location.pathname, `${provider.issuer.url}/authorize`, name);
      assert.equal(location.searchParams.get('client_id'), 'bot-platform');
      assert.equal(
        location.searchParams.get('redirect_uri'),
        `http://bots.test/api/auth/oauth/${name}/callback`,
      );
      // The flow cookie's attributes, the PKCE challenge and the provider's answer are checked by authorize().
      const { callback } = await authorize(name);
      assert.equal(callback.origin + callback.pathname, `http://bots.test/api/auth/oauth/${name}/callback`);
      assert.ok(callback.searchParams.get('code'), callback.href);
    }
  });

  test('starting sign-ins stores nothing on the server', async () => {
    for (let i = 0; i < 5; i++) await authorize('oidc');
    assert.equal((await t.db.selectFrom('sessions').select('id_hash').execute()).length, 0);
  });
});

describe('startOAuthSignIn 400', () => {
  test('a `next` that leaves the site starts no flow', async () => {
    for (const next of ['//evil.example', '/\\evil.example', 'https://evil.example', '/\t/evil.example']) {
      const response = await t.app.inject({ url: '/api/auth/oauth/oidc', query: { next } });
      assert.equal(response.statusCode, 400, `${next}: ${response.body}`);
      assertContract('startOAuthSignIn', response);
      assert.equal(response.headers.location, undefined);
      assert.ok(!response.cookies.some((c) => c.name === 'bp_oauth'), 'no flow cookie');
    }
  });
});

describe('startOAuthSignIn 404', () => {
  test('an unknown provider is a 404', async () => {
    const unknown = await t.app.inject({ url: '/api/auth/oauth/nope' });
    assert.equal(unknown.statusCode, 404);
    assertContract('startOAuthSignIn', unknown);
  });
});

describe('startOAuthSignIn 502', () => {
  test('a provider that cannot be reached is a 502 that names no internals', async () => {
    const down = await t.app.inject({ url: '/api/auth/oauth/down' });
    assert.equal(down.statusCode, 502, down.body);
    assert.equal(down.json().code, 'upstream_failed');
    assert.doesNotMatch(down.body, /127\.0\.0\.1|ECONNREFUSED/);
  });
});
