// Signing in and out in a browser, for the API handlers and the sign-in page alike:
// requestEmailSignIn, completeEmailSignIn, startOAuthSignIn, completeOAuthSignIn, signOut and
// signOutEverywhere, each with the cookies it sets. Signing in always regenerates the session id (the
// old session, with any OAuth state in it, is destroyed), so a session id planted before sign-in is
// worth nothing after it.
import { randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../platform/db/schema.js';
import { notFound, ProblemError } from '../platform/spec/problems.js';
import type { Clock } from '../platform/db/clock.js';
import type { Mailer } from './mailer.js';
import type { OAuthProvider } from './oauth.js';
import { deleteSessionsOfUser } from '../platform/sessions/repository.js';
import { userIdForIdentity } from './repository.js';
import { linkLifetimeSeconds, mailSignInLink, redeemSignInLink } from './service.js';
import { sessionCookieName, sessionCookieOptions } from '../platform/sessions/cookie.js';

/** Where a person lands after signing in, unless they asked for another page: their own page. */
const defaultNext = '/me';

/**
 * An OAuth flow under way lives in its own signed cookie for 10 minutes, not in a session: starting
 * a sign-in stores nothing on the server, however often anyone starts one.
 */
const oauthCookie = { name: 'bp_oauth', path: '/api/auth/oauth', lifetimeSeconds: 10 * 60 };

/**
 * The browser that asks for an e-mail link gets a random nonce in this signed cookie, and the link's
 * token is stored hashed together with it: the link works only where the cookie is, so nobody can
 * mail a link of their own account to someone else (or use one sent to someone else's address).
 */
const emailCookie = { name: 'bp_signin', path: '/api/auth/email', lifetimeSeconds: linkLifetimeSeconds };

interface PendingOAuth {
  provider: string;
  state: string;
  codeVerifier: string;
  nonce: string | undefined;
  next: string;
  startedAt: number;
}

export interface AuthDependencies {
  db: Db;
  config: Config;
  clock: Clock | undefined;
  mailer: Mailer;
  oauthProviders: Map<string, OAuthProvider>;
}

/** E-mail sign-in, unless the operator switched it off (a 404, as for a route that is not there). */
function requireEmailSignIn(config: Config): void {
  if (!config.humans.emailSignIn) throw notFound('E-mail sign-in is switched off on this server.');
}

/** The OAuth flow this browser started, from its signed cookie; undefined when absent, forged or unreadable. */
function pendingOAuth(cookie: string | undefined, request: FastifyRequest): PendingOAuth | undefined {
  if (!cookie) return undefined;
  const unsigned = request.unsignCookie(cookie);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  try {
    return JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as PendingOAuth;
  } catch {
    return undefined;
  }
}

/** This browser's e-mail sign-in nonce, from its signed cookie; undefined when absent or forged. */
function emailNonce(cookie: string | undefined, request: FastifyRequest): string | undefined {
  if (!cookie) return undefined;
  const unsigned = request.unsignCookie(cookie);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

async function signIn(request: FastifyRequest, userId: string) {
  await request.session.regenerate();
  request.session.userId = userId;
}

function upstreamFailed(request: FastifyRequest, provider: string, error: unknown): ProblemError {
  request.log.warn({ err: error, provider }, 'the sign-in provider failed');
  return new ProblemError(
    502,
    'upstream_failed',
    `The sign-in provider ${provider} failed or could not be reached. Try again shortly.`,
  );
}

/**
 * requestEmailSignIn: mails a sign-in link bound to this browser (the `bp_signin` nonce cookie), for
 * the operation and the sign-in page. A failure to send is logged, never told: the answer must not depend on
 * the address.
 */
export async function requestEmailSignIn(
  { db, config, clock, mailer }: Omit<AuthDependencies, 'oauthProviders'>,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { email: string; next?: string | null | undefined },
): Promise<void> {
  requireEmailSignIn(config);
  // One nonce per browser: asking twice keeps both links valid in the same browser.
  const nonce =
    emailNonce(request.cookies[emailCookie.name], request) ?? randomBytes(24).toString('base64url');
  reply.setCookie(emailCookie.name, nonce, {
    ...sessionCookieOptions(config),
    path: emailCookie.path,
    maxAge: emailCookie.lifetimeSeconds,
    signed: true,
  });
  // Per client IP is the route's own limit (x-rate-limit, before the body is read).
  const mailed = await mailSignInLink(
    db,
    { config, mailer, clock },
    {
      email: input.email,
      next: input.next ?? defaultNext,
      nonce,
      requester: normalizeIP(request.ip, 64),
    },
  );
  if (!mailed.sent) request.log.error({ err: mailed.error }, 'sending a sign-in mail failed');
}

/** signOut: this browser's session is destroyed on the server and its cookie cleared. */
export async function signOut(config: Config, request: FastifyRequest, reply: FastifyReply) {
  await request.session.destroy();
  reply.clearCookie(sessionCookieName(config), sessionCookieOptions(config));
}

/** completeEmailSignIn: the link's token redeemed in the browser that asked for it; where to go next. */
export async function completeEmailSignIn(
  { db, config, clock }: Pick<AuthDependencies, 'db' | 'config' | 'clock'>,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
): Promise<string> {
  requireEmailSignIn(config);
  const nonce = emailNonce(request.cookies[emailCookie.name], request);
  const redeemed = await redeemSignInLink(db, token, nonce, clock?.() ?? new Date());
  if (!redeemed) {
    throw new ProblemError(
      400,
      'invalid_token',
      'This sign-in link is unknown, already used or expired, or was opened in another browser than the one that asked for it. Ask for a new one in this browser.',
      {
        errors: [
          { in: 'query', pointer: '/token', message: 'is not a valid sign-in token for this browser' },
        ],
      },
    );
  }
  reply.clearCookie(emailCookie.name, { ...sessionCookieOptions(config), path: emailCookie.path });
  await signIn(request, redeemed.userId);
  return redeemed.next;
}

/** OAuth's redirect back to us, for a provider. */
const redirectUri = (config: Config, name: string) => `${config.publicUrl}/api/auth/oauth/${name}/callback`;

/** A configured sign-in provider, or a 404 naming it. */
function providerNamed(oauthProviders: Map<string, OAuthProvider>, name: string): OAuthProvider {
  const found = oauthProviders.get(name);
  if (!found) throw notFound(`No sign-in provider is called ${name}.`);
  return found;
}

/** startOAuthSignIn: the flow's state in this browser's signed cookie; the provider's page to go to. */
export async function startOAuthSignIn(
  { config, clock, oauthProviders }: Pick<AuthDependencies, 'config' | 'clock' | 'oauthProviders'>,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { provider: string; next: string | undefined },
): Promise<URL> {
  const chosen = providerNamed(oauthProviders, input.provider);
  let started: Awaited<ReturnType<OAuthProvider['start']>>;
  try {
    started = await chosen.start(redirectUri(config, chosen.name));
  } catch (error) {
    throw upstreamFailed(request, chosen.name, error);
  }
  const { state, codeVerifier, nonce } = started;
  const pending: PendingOAuth = {
    provider: chosen.name,
    state,
    codeVerifier,
    nonce,
    next: input.next ?? defaultNext,
    startedAt: (clock?.() ?? new Date()).getTime(),
  };
  reply.setCookie(oauthCookie.name, Buffer.from(JSON.stringify(pending)).toString('base64url'), {
    ...sessionCookieOptions(config),
    path: oauthCookie.path,
    maxAge: oauthCookie.lifetimeSeconds,
    signed: true,
  });
  return started.url;
}

/** What the provider's redirect carries back. */
interface OAuthCallback {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * completeOAuthSignIn: only the browser that started this sign-in may finish or cancel it (the
 * state first); the person signed in by the identity the provider vouches for; where to go next.
 */
export async function completeOAuthSignIn(
  { db, config, clock, oauthProviders }: AuthDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  providerName: string,
  query: OAuthCallback,
): Promise<string> {
  const chosen = providerNamed(oauthProviders, providerName);
  const pending = pendingOAuth(request.cookies[oauthCookie.name], request);
  reply.clearCookie(oauthCookie.name, { ...sessionCookieOptions(config), path: oauthCookie.path });
  const fresh =
    pending !== undefined &&
    (clock?.() ?? new Date()).getTime() - pending.startedAt < oauthCookie.lifetimeSeconds * 1000;
  if (
    !fresh ||
    pending.provider !== chosen.name ||
    query.state === undefined ||
    query.state !== pending.state
  )
    throw new ProblemError(
      400,
      'invalid_token',
      'This sign-in does not match one started in this browser in the last 10 minutes (state). Start again.',
      {
        errors: [
          { in: 'query', pointer: '/state', message: 'does not match the sign-in started in this browser' },
        ],
      },
    );
  if (query.error !== undefined || query.code === undefined) {
    const error = query.error ?? 'no code';
    throw new ProblemError(
      400,
      'invalid_token',
      `The sign-in provider did not sign you in (${error}). Start again.`,
      {
        errors: [
          {
            in: 'query',
            pointer: query.error === undefined ? '/code' : '/error',
            message: query.error_description ?? error,
          },
        ],
      },
    );
  }
  let identity: Awaited<ReturnType<OAuthProvider['finish']>>;
  try {
    identity = await chosen.finish(new URL(request.url, config.publicUrl), pending);
  } catch (error) {
    throw upstreamFailed(request, chosen.name, error);
  }
  await signIn(request, await userIdForIdentity(db, { provider: chosen.name, ...identity }));
  return pending.next;
}

/** signOutEverywhere: every session of the person deleted, this browser's cookie cleared. */
export async function signOutEverywhere(
  { db, config }: Pick<AuthDependencies, 'db' | 'config'>,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<void> {
  await deleteSessionsOfUser(db, userId);
  await signOut(config, request, reply);
}
