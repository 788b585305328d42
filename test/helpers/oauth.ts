// The OAuth 2.0 / OpenID Connect sign-in flow against a real provider (oauth2-mock-server), shared
// by test/auth/startOAuthSignIn.test.ts and test/auth/completeOAuthSignIn.test.ts: our start
// redirects to its authorization endpoint, it redirects back with a code, our callback exchanges
// the code (PKCE-checked by the provider) and starts a new session.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { OAuth2Server } from 'oauth2-mock-server';
import type { OAuthProviderConfig } from '../../src/config.js';
import { testConfig, useTestApp, type TestApp } from './app.js';
import { assertContract } from './contract.js';

export interface OAuthTestApp {
  t: TestApp;
  provider: OAuth2Server;
  /** What the provider says about the user in its next answers (ID token and user info). */
  claims: Record<string, unknown>;
  /** Starts a sign-in and lets the provider answer: the callback URL it sends the browser to, and the flow's cookie. */
  authorize: (name: string, next?: string) => Promise<{ callback: URL; cookie: string }>;
  /** Follows the provider's redirect back to our callback, as the browser holding `cookie`. */
  callback: (url: URL, cookie: string | undefined) => Promise<LightMyRequestResponse>;
}

/**
 * Starts the provider and declares the app (useTestApp) configured with three providers of it:
 * `oidc` (OpenID Connect discovery), `plain` (GitHub-style: no discovery, no ID token, a user-info
 * endpoint) and `down` (unreachable). Call it with top-level `await`, before any hook runs: the
 * app's configuration needs the provider's URL, and Node 20 does not wait for one root-level
 * `before` hook to finish before starting the next.
 */
export async function useOAuthTestApp(): Promise<OAuthTestApp> {
  const provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  provider.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, context.claims));
  provider.service.on('beforeUserinfo', (userinfo) => Object.assign(userinfo.body as object, context.claims));
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

  const context: OAuthTestApp = {
    t,
    provider,
    claims: {},
    async authorize(name, next = '/welcome') {
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
    },
    callback(url, cookie) {
      return t.app.inject({ url: url.pathname + url.search, headers: cookie ? { cookie } : {} });
    },
  };
  return context;
}
