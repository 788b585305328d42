// Handlers of signing in and out: requestEmailSignIn, completeEmailSignIn, startOAuthSignIn,
// completeOAuthSignIn, signOut, signOutEverywhere, getMe. Signing in always regenerates the session id (the old
// session, with any OAuth state in it, is destroyed), so a session id planted before sign-in is
// worth nothing after it.
import { randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { notFound, ProblemError } from '../platform/spec/problems.js';
import type { Clock } from '../platform/db/clock.js';
import { signedInUserId } from '../platform/admission/request-context.js';
import type { Mailer } from './mailer.js';
import type { OAuthProvider } from './oauth.js';
import { deleteSessionsOfUser } from '../platform/sessions/repository.js';
import { userIdForIdentity } from './repository.js';
import { linkLifetimeSeconds, mailSignInLink, redeemSignInLink, signedInPerson } from './service.js';
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
 * Mails a sign-in link bound to this browser (the `bp_signin` nonce cookie), as requestEmailSignIn
 * and the sign-in page do. A failure to send is logged, never told: the answer must not depend on
 * the address.
 */
export async function sendSignInMail(
  { db, config, clock, mailer }: Omit<AuthDependencies, 'oauthProviders'>,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { email: string; next?: string | null | undefined },
): Promise<void> {
  if (!config.humans.emailSignIn) throw notFound('E-mail sign-in is switched off on this server.');
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

/** Signs out this browser: its session is destroyed on the server and its cookie cleared. */
export async function endSession(config: Config, request: FastifyRequest, reply: FastifyReply) {
  await request.session.destroy();
  reply.clearCookie(sessionCookieName(config), sessionCookieOptions(config));
}

export function authHandlers({ db, config, clock, mailer, oauthProviders }: AuthDependencies) {
  const now = () => clock?.() ?? new Date();
  const provider = (name: string) => {
    const found = oauthProviders.get(name);
    if (!found) throw notFound(`No sign-in provider is called ${name}.`);
    return found;
  };
  const redirectUri = (name: string) => `${config.publicUrl}/api/auth/oauth/${name}/callback`;
  const emailSignInEnabled = () => {
    if (!config.humans.emailSignIn) throw notFound('E-mail sign-in is switched off on this server.');
  };

  return {
    async requestEmailSignIn({ body, request, reply }) {
      await sendSignInMail({ db, config, clock, mailer }, request, reply, body);
      // Still a 202 when sending failed: the answer must not depend on the address. The operator sees it.
      return { status: 202, body: { status: 'pending', expires_in_seconds: linkLifetimeSeconds } };
    },

    async completeEmailSignIn({ query, request, reply }) {
      emailSignInEnabled();
      const nonce = emailNonce(request.cookies[emailCookie.name], request);
      const redeemed = await redeemSignInLink(db, query.token, nonce, now());
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
      return { status: 302, headers: { location: redeemed.next } };
    },

    async startOAuthSignIn({ params, query, request, reply }) {
      const chosen = provider(params.provider);
      let started: Awaited<ReturnType<OAuthProvider['start']>>;
      try {
        started = await chosen.start(redirectUri(chosen.name));
      } catch (error) {
        throw upstreamFailed(request, chosen.name, error);
      }
      const { state, codeVerifier, nonce } = started;
      const pending: PendingOAuth = {
        provider: chosen.name,
        state,
        codeVerifier,
        nonce,
        next: query.next ?? defaultNext,
        startedAt: now().getTime(),
      };
      reply.setCookie(oauthCookie.name, Buffer.from(JSON.stringify(pending)).toString('base64url'), {
        ...sessionCookieOptions(config),
        path: oauthCookie.path,
        maxAge: oauthCookie.lifetimeSeconds,
        signed: true,
      });
      return { status: 302, headers: { location: started.url.href } };
    },

    async completeOAuthSignIn({ params, query, request, reply }) {
      const chosen = provider(params.provider);
      const pending = pendingOAuth(request.cookies[oauthCookie.name], request);
      reply.clearCookie(oauthCookie.name, { ...sessionCookieOptions(config), path: oauthCookie.path });
      // The state first: only the browser that started this sign-in may finish or cancel it.
      const fresh =
        pending !== undefined && now().getTime() - pending.startedAt < oauthCookie.lifetimeSeconds * 1000;
      if (
        !fresh ||
        pending.provider !== chosen.name ||
        query.state === undefined ||
        query.state !== pending.state
      ) {
        throw new ProblemError(
          400,
          'invalid_token',
          'This sign-in does not match one started in this browser in the last 10 minutes (state). Start again.',
          {
            errors: [
              {
                in: 'query',
                pointer: '/state',
                message: 'does not match the sign-in started in this browser',
              },
            ],
          },
        );
      }
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
      return { status: 302, headers: { location: pending.next } };
    },

    async signOut({ request, reply }) {
      await endSession(config, request, reply);
      return { status: 204 };
    },

    async signOutEverywhere({ request, reply }) {
      const userId = signedInUserId(request);
      await deleteSessionsOfUser(db, userId);
      await endSession(config, request, reply);
      return { status: 204 };
    },

    async getMe({ request }) {
      const person = await signedInPerson(db, signedInUserId(request));
      if (!person) {
        await request.session.destroy();
        throw new ProblemError(401, 'unauthorized', 'Sign in first.');
      }
      return { status: 200, body: person };
    },
  } satisfies Pick<
    HandlerMap,
    | 'requestEmailSignIn'
    | 'completeEmailSignIn'
    | 'startOAuthSignIn'
    | 'completeOAuthSignIn'
    | 'signOut'
    | 'signOutEverywhere'
    | 'getMe'
  >;
}
