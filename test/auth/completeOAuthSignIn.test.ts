// The end of the OAuth 2.0 / OpenID Connect redirect flow against a real provider
// (oauth2-mock-server, see test/helpers/oauth.ts): our callback exchanges the code (PKCE-checked by
// the provider) and starts a new session. The start is in startOAuthSignIn.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertContract } from '../helpers/contract.js';
import { sessionCookieOf, signIn, uniqueEmail } from '../helpers/humans.js';
import { useOAuthTestApp } from '../helpers/oauth.js';

// Started before any hook runs: the app's configuration needs the provider's URL.
const oauth = await useOAuthTestApp();
const { t, authorize, callback } = oauth;

describe('completeOAuthSignIn 302', () => {
  test('OpenID Connect: a new session under a new id, sent on to `next`; a session planted before is destroyed', async () => {
    // The browser already holds a session (an attacker's, planted to fix the id): signing in must not keep it.
    const planted = await signIn(t);
    const { callback: url, cookie } = await authorize('oidc');
    assert.equal(url.origin + url.pathname, 'http://bots.test/api/auth/oauth/oidc/callback');
    const done = await callback(url, `${cookie}; ${planted}`);
    assert.equal(done.statusCode, 302, done.body);
    assertContract('completeOAuthSignIn', done);
    assert.equal(done.headers.location, '/welcome');
    const session = sessionCookieOf(done);
    assert.notEqual(session, planted, 'the session id changes at sign-in');
    const me = await t.app.inject({ url: '/api/me', headers: { cookie: session } });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(
      (await t.app.inject({ url: '/api/me', headers: { cookie: planted } })).statusCode,
      401,
      'the planted session is destroyed',
    );
    assert.ok(
      done.cookies.some((c) => c.name === 'bp_oauth' && c.value === ''),
      'the flow cookie is cleared',
    );
  });

  test('the same provider subject signs in as the same user; a verified e-mail links to the user who has it', async () => {
    const email = uniqueEmail();
    const byMail = (
      await t.app.inject({ url: '/api/me', headers: { cookie: await signIn(t, email) } })
    ).json().user;
    const signInAs = async (name: string, said: Record<string, unknown>) => {
      oauth.claims = said;
      const { callback: url, cookie } = await authorize(name);
      const done = await callback(url, cookie);
      assert.equal(
        done.statusCode,
        302,
        `${done.body}\n${t.logs.filter((l) => l.includes('provider failed')).join('\n')}`,
      );
      return (await t.app.inject({ url: '/api/me', headers: { cookie: sessionCookieOf(done) } })).json().user;
    };
    const linked = await signInAs('oidc', { sub: 'subject-1', email, email_verified: true });
    assert.equal(linked.id, byMail.id);
    assert.equal(
      (await signInAs('oidc', { sub: 'subject-1', email: 'changed@example.com', email_verified: true })).id,
      byMail.id,
    );
    // An unverified address links nothing: a new user, without an address.
    const stranger = await signInAs('oidc', { sub: 'subject-2', email, email_verified: false });
    assert.notEqual(stranger.id, byMail.id);
    assert.equal(stranger.email, null);
    // A plain OAuth 2.0 provider is another identity namespace, identified by its user-info subject.
    const plain = await signInAs('plain', { sub: 'subject-1' });
    assert.notEqual(plain.id, byMail.id);
    assert.equal((await signInAs('plain', { sub: 'subject-1' })).id, plain.id);
    oauth.claims = {};
  });
});

describe('completeOAuthSignIn 400', () => {
  test('a wrong state, a callback without the browser that started it, another provider, a forged cookie or a refusal sign nobody in', async () => {
    const { callback: url, cookie } = await authorize('oidc');
    const forged = new URL(url);
    forged.searchParams.set('state', 'forged');
    const refused = new URL(url);
    refused.search = '?error=access_denied&state=' + url.searchParams.get('state');
    const mixUp = new URL(url);
    mixUp.pathname = '/api/auth/oauth/plain/callback';
    const tampered = cookie.replace(
      /^bp_oauth=./,
      (prefix) => prefix.slice(0, -1) + (prefix.endsWith('A') ? 'B' : 'A'),
    );
    for (const [label, target, headers] of [
      ['wrong state', forged, cookie],
      ['no flow cookie', url, undefined],
      ['another provider', mixUp, cookie],
      ['tampered cookie', url, tampered],
      ['refused', refused, cookie],
    ] as const) {
      const response = await callback(target, headers);
      assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
      assertContract('completeOAuthSignIn', response);
      assert.equal(response.json().code, 'invalid_token');
      const session = response.cookies.find((c) => c.name === 'bp_session' && c.value);
      if (session)
        assert.equal(
          (await t.app.inject({ url: '/api/me', headers: { cookie: `bp_session=${session.value}` } }))
            .statusCode,
          401,
          label,
        );
    }
    // A refusal without the right state cancels nothing: the real callback still works.
    const stranger = new URL(url);
    stranger.search = '?error=access_denied&state=guess';
    assert.equal((await callback(stranger, undefined)).statusCode, 400);
    assert.equal((await callback(url, cookie)).statusCode, 302);
  });
});

describe('completeOAuthSignIn 404', () => {
  test('a callback for a provider that is not configured signs nobody in', async () => {
    const { callback: url, cookie } = await authorize('oidc');
    const unknown = new URL(url);
    unknown.pathname = '/api/auth/oauth/nope/callback';
    const response = await callback(unknown, cookie);
    assert.equal(response.statusCode, 404, response.body);
    assertContract('completeOAuthSignIn', response);
    assert.equal(response.json().code, 'not_found');
    assert.ok(!response.cookies.some((c) => c.name === 'bp_session' && c.value), 'no session');
  });
});
