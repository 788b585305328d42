// The whole OAuth 2.0 / OpenID Connect redirect flow against a real provider (oauth2-mock-server):
// our start redirects to its authorization endpoint, it redirects back with a code, our callback
// exchanges the code (PKCE-checked by the provider) and starts a new session.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { OAuth2Server } from 'oauth2-mock-server';
import type { OAuthProviderConfig } from '../../src/config.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { sessionCookieOf, signIn, uniqueEmail } from '../helpers/humans.js';

const provider = new OAuth2Server();
/** What the provider says about the user in its next answers (ID token and user info). */
let claims: Record<string, unknown> = {};
// Started before any hook: the app's configuration below needs the provider's URL, and Node 20
// does not wait for one root-level `before` hook to finish before starting the next.
await provider.issuer.keys.generate('RS256');
await provider.start(0, '127.0.0.1');
provider.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, claims));
provider.service.on('beforeUserinfo', (userinfo) => Object.assign(userinfo.body as object, claims));
after(() => provider.stop());

const client = {
  clientId: 'bot-platform',
  clientSecret: 'not-so-secret',
  authorizationUrl: undefined,
  tokenUrl: undefined,
  userinfoUrl: undefined,
};
const t = useTestApp(() => {
  const issuer = provider.issuer.url!;
  const providers: OAuthProviderConfig[] = [
    { name: 'oidc', ...client, scopes: 'openid email', issuer },
    // GitHub-style: no discovery, no ID token, a user-info endpoint.
    {
      name: 'plain',
      ...client,
      scopes: 'profile',
      issuer: undefined,
      authorizationUrl: `${issuer}/authorize`,
      tokenUrl: `${issuer}/token`,
      userinfoUrl: `${issuer}/userinfo`,
    },
    { name: 'down', ...client, scopes: 'openid', issuer: 'http://127.0.0.1:9' },
  ];
  return { humans: { ...testConfig().humans, oauthProviders: providers } };
});

/** Starts a sign-in and lets the provider answer: the callback URL it sends the browser to, and the flow's cookie. */
async function authorize(name: string, next = '/welcome') {
  const start = await t.app.inject({ url: `/api/auth/oauth/${name}`, query: { next } });
  assert.equal(start.statusCode, 302, start.body);
  assertContract('startOAuthSignIn', start);
  const flow = start.cookies.find((c) => c.name === 'bp_oauth');
  assert.ok(
    flow &&
      flow.httpOnly &&
      flow.sameSite === 'Lax' &&
      flow.path === '/api/auth/oauth' &&
      flow.maxAge === 600,
    JSON.stringify(flow),
  );
  assert.ok(!start.cookies.some((c) => c.name === 'bp_session'), 'starting a sign-in opens no session');
  const location = new URL(start.headers.location as string);
  assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(location.searchParams.get('code_challenge') && location.searchParams.get('state'));
  const answer = await fetch(location, { redirect: 'manual' });
  assert.equal(answer.status, 302);
  return { callback: new URL(answer.headers.get('location')!), cookie: `bp_oauth=${flow.value}` };
}

async function callback(url: URL, cookie: string | undefined) {
  return t.app.inject({ url: url.pathname + url.search, headers: cookie ? { cookie } : {} });
}

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

  test('starting sign-ins stores nothing on the server', async () => {
    for (let i = 0; i < 5; i++) await authorize('oidc');
    assert.equal((await t.db.selectFrom('sessions').select('id_hash').execute()).length, 0);
  });

  test('the same provider subject signs in as the same user; a verified e-mail links to the user who has it', async () => {
    const email = uniqueEmail();
    const byMail = (
      await t.app.inject({ url: '/api/me', headers: { cookie: await signIn(t, email) } })
    ).json().user;
    const signInAs = async (name: string, said: Record<string, unknown>) => {
      claims = said;
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
    claims = {};
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

describe('startOAuthSignIn and completeOAuthSignIn 404 and 502', () => {
  test('an unknown provider is a 404; a provider that cannot be reached is a 502', async () => {
    const unknown = await t.app.inject({ url: '/api/auth/oauth/nope' });
    assert.equal(unknown.statusCode, 404);
    assertContract('startOAuthSignIn', unknown);
    const down = await t.app.inject({ url: '/api/auth/oauth/down' });
    assert.equal(down.statusCode, 502, down.body);
    assert.equal(down.json().code, 'upstream_failed');
    assert.doesNotMatch(down.body, /127\.0\.0\.1|ECONNREFUSED/);
  });
});
