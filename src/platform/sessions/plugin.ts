// Human sessions (the spec's `cookieAuth`): @fastify/cookie + @fastify/session over our Postgres
// store, and the hook that guards every cookie-secured operation. The cookie `bp_session`
// (`__Host-bp_session` over HTTPS) is HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https, and lasts 30 days from sign-in; empty
// sessions are never stored or sent. Every state-changing cookie request must prove it comes from
// one of our origins (Origin, else Referer), which is what makes a forged cross-site form useless.
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import fastifyCookie from '@fastify/cookie';
import fastifySession, { type FastifySessionObject, type SessionStore } from '@fastify/session';
import type { Config } from '../../config.js';
import type { Db } from '../db/schema.js';
import { deleteSession, findSessionData, saveSession } from './repository.js';
import { sessionCookieName, sessionCookieOptions, sessionLifetimeMs } from './cookie.js';
import { hashSecret } from '../admission/secrets.js';
import { ProblemError } from '../spec/problems.js';

export interface SessionsOptions {
  db: Db;
  config: Config;
}

export default fp<SessionsOptions>(
  async function sessions(app: FastifyInstance, { db, config }) {
    if (config.humans.sessionSecretEphemeral) {
      app.log.warn(
        'SESSION_SECRET is not set: sessions are signed with a secret generated for this process and end when it stops',
      );
    }
    // The cookie plugin signs our other cookie (the OAuth flow's state) with the same secrets.
    await app.register(fastifyCookie, { secret: config.humans.sessionSecrets });
    await app.register(fastifySession, {
      secret: config.humans.sessionSecrets,
      cookieName: sessionCookieName(config),
      cookie: { ...sessionCookieOptions(config), maxAge: sessionLifetimeMs },
      store: postgresSessionStore(db),
      saveUninitialized: false,
      rolling: false,
    });
  },
  { name: 'sessions', dependencies: ['errors'] },
);

/**
 * @fastify/session's callback store over ./repository.ts: one row per session, keyed by the hash of
 * its id, with its cookie's expiry. Expired sessions are never returned.
 */
function postgresSessionStore(db: Db): SessionStore {
  return {
    set(sessionId, session, callback) {
      const expiresAt = session.cookie.expires ?? new Date(Date.now() + sessionLifetimeMs);
      saveSession(db, {
        idHash: hashSecret(sessionId),
        data: JSON.stringify(session),
        expiresAt,
        userId: session.userId ?? null,
      }).then(() => callback(), callback);
    },
    get(sessionId, callback) {
      findSessionData(db, hashSecret(sessionId), new Date()).then(
        (data) => callback(null, (data ?? null) as FastifySessionObject | null),
        callback,
      );
    },
    destroy(sessionId, callback) {
      deleteSession(db, hashSecret(sessionId)).then(() => callback(), callback);
    },
  };
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a state-changing request that does not prove it comes from one of our origins (Origin,
 * else Referer): what makes a forged cross-site form useless, for the API and the pages' forms alike.
 */
export function sameOriginGuard(config: Config): (request: FastifyRequest) => void {
  const trusted = new Set([
    new URL(config.publicUrl).origin,
    ...config.humans.allowedOrigins.map((origin) => new URL(origin).origin),
  ]);
  return (request) => {
    if (!safeMethods.has(request.method) && !isSameOrigin(request, trusted)) {
      throw new ProblemError(
        403,
        'forbidden',
        'A state-changing request with a session cookie must come from one of our origins (Origin or Referer header).',
      );
    }
  };
}

/** The cookieAuth hook: a signed-in session, no bot key, and same-origin for state changes. */
export function sessionAuth(config: Config): onRequestAsyncHookHandler {
  const requireSameOrigin = sameOriginGuard(config);
  return async function authenticateHuman(request) {
    if (request.headers.authorization !== undefined) {
      throw new ProblemError(
        401,
        'unauthorized',
        'This operation is for signed-in humans: send the session cookie, not a bot key.',
      );
    }
    if (!request.session.userId) throw new ProblemError(401, 'unauthorized', 'Sign in first.');
    requireSameOrigin(request);
  };
}

function isSameOrigin(request: FastifyRequest, trusted: Set<string>): boolean {
  const claimed = request.headers.origin ?? request.headers.referer;
  if (!claimed || claimed === 'null') return false;
  let origin: string;
  try {
    origin = new URL(claimed).origin;
  } catch {
    return false;
  }
  if (trusted.has(origin)) return true;
  try {
    return origin === new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return false;
  }
}
