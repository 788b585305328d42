// Sign-in providers from configuration, over openid-client: OpenID Connect issuers (metadata
// discovered once, on first use) and plain OAuth 2.0 providers described by their endpoints
// (GitHub-style). Every flow uses `state` and PKCE (S256); OpenID Connect flows also a nonce and
// the ID token's claims. Plain http is allowed only for loopback hosts (local providers and tests).
// openid-client is loaded on the first sign-in, not at start-up: most servers start without one.
import type * as OpenId from 'openid-client';
import type { OAuthProviderConfig } from '../config.js';

export interface Identity {
  subject: string;
  /** The address, only when the provider says it is verified. */
  verifiedEmail: string | undefined;
}

export interface OAuthProvider {
  name: string;
  /** The provider's authorization URL for a new flow, with what the callback must check. */
  start(
    redirectUri: string,
  ): Promise<{ url: URL; state: string; codeVerifier: string; nonce: string | undefined }>;
  /** Exchanges the callback's code (PKCE-checked) and says who signed in. */
  finish(
    callbackUrl: URL,
    checks: { state: string; codeVerifier: string; nonce: string | undefined },
  ): Promise<Identity>;
}

let openIdClient: Promise<typeof OpenId> | undefined;
const loadOpenIdClient = () => (openIdClient ??= import('openid-client'));

const loopback = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLoopbackHttp = (url: string) =>
  new URL(url).protocol === 'http:' && loopback.has(new URL(url).hostname);

export function oauthProviders(configs: OAuthProviderConfig[]): Map<string, OAuthProvider> {
  return new Map(configs.map((config) => [config.name, oauthProvider(config)]));
}

function oauthProvider(provider: OAuthProviderConfig): OAuthProvider {
  const oidc = provider.issuer !== undefined;
  let configuration: Promise<OpenId.Configuration> | undefined;
  const configure = () => {
    configuration ??= createConfiguration(provider).catch((error: unknown) => {
      configuration = undefined; // a provider that was down is asked again next time
      throw error;
    });
    return configuration;
  };

  return {
    name: provider.name,
    async start(redirectUri) {
      const client = await loadOpenIdClient();
      const config = await configure();
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = oidc ? client.randomNonce() : undefined;
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: provider.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        ...(nonce ? { nonce } : {}),
      });
      return { url, state, codeVerifier, nonce };
    },
    async finish(callbackUrl, checks) {
      const client = await loadOpenIdClient();
      const config = await configure();
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        ...(checks.nonce ? { expectedNonce: checks.nonce } : {}),
        idTokenExpected: oidc,
      });
      if (oidc) {
        const claims = tokens.claims()!;
        let { email, email_verified: verified } = claims;
        if (email === undefined && config.serverMetadata().userinfo_endpoint) {
          ({ email, email_verified: verified } = await client.fetchUserInfo(
            config,
            tokens.access_token,
            claims.sub,
          ));
        }
        return {
          subject: claims.sub,
          verifiedEmail: verified === true && typeof email === 'string' ? email : undefined,
        };
      }
      const response = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(provider.userinfoUrl!),
        'GET',
      );
      if (!response.ok) throw new Error(`the user-info endpoint answered ${response.status}`);
      const user = (await response.json()) as {
        sub?: unknown;
        id?: unknown;
        email?: unknown;
        email_verified?: unknown;
      };
      const subject = user.sub ?? user.id;
      if (typeof subject !== 'string' && typeof subject !== 'number')
        throw new Error('the user-info response names no subject (sub or id)');
      return {
        subject: String(subject),
        verifiedEmail:
          user.email_verified === true && typeof user.email === 'string' ? user.email : undefined,
      };
    },
  };
}

async function createConfiguration(provider: OAuthProviderConfig): Promise<OpenId.Configuration> {
  const client = await loadOpenIdClient();
  if (provider.issuer) {
    const execute = isLoopbackHttp(provider.issuer) ? [client.allowInsecureRequests] : [];
    return client.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, {
      execute,
    });
  }
  const config = new client.Configuration(
    {
      issuer: new URL(provider.authorizationUrl!).origin,
      authorization_endpoint: provider.authorizationUrl!,
      token_endpoint: provider.tokenUrl!,
    },
    provider.clientId,
    provider.clientSecret,
  );
  if ([provider.authorizationUrl!, provider.tokenUrl!, provider.userinfoUrl!].some(isLoopbackHttp))
    client.allowInsecureRequests(config);
  return config;
}
