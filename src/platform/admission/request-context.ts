// Who is calling: the bot a bearerAuth operation was called by, the pending admission of an
// operation limited per bot, and the signed-in human of a cookieAuth operation. The security hooks
// (bearer-auth.ts, sessions/plugin.ts) write these onto the request; handlers and pages read them here, so the areas never
// import the framework wiring.
import type { FastifyRequest } from 'fastify';
import type { BotRow } from '../db/schema.js';
import type { BotAdmission } from './bot-admission.js';
import type { ApiKeyScope } from './scopes.js';

/** The key a request was made with: its id and what it may call. */
export interface CallingKey {
  id: string;
  scopes: ApiKeyScope[];
  /** When it stops working (null: never). */
  expiresAt: Date | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated bot, on operations secured by bearerAuth. */
    bot: BotRow | null;
    /** The key it called with, on operations secured by bearerAuth (not on limited writes: their statement finds it). */
    apiKey: CallingKey | null;
    /**
     * On an operation whose credential is optional (a `{}` security requirement beside bearerAuth):
     * authenticates the caller when the handler needs it, as bearerAuth would (a 401 if it cannot).
     */
    authenticateOptionalBot: (() => Promise<void>) | null;
    /** The admission an operation limited per bot settles in its write's statement. */
    botAdmission: BotAdmission | null;
  }
  interface Session {
    /** The signed-in user. Set only at sign-in, on a fresh session id; nothing else is ever stored. */
    userId?: string;
  }
}

/** The bot a bearerAuth operation was called by; the hook guarantees it is there. */
export function authenticatedBot(request: FastifyRequest): BotRow {
  if (!request.bot)
    throw new Error(`${request.routeOptions.config.operationId} used authenticatedBot without bearerAuth`);
  return request.bot;
}

/** The key a bearerAuth operation was called with; the hook guarantees it is there. */
export function callingKey(request: FastifyRequest): CallingKey {
  if (!request.apiKey)
    throw new Error(`${request.routeOptions.config.operationId} used callingKey without bearerAuth`);
  return request.apiKey;
}

/** The caller of an operation whose credential is optional, now that the handler needs one (or a 401). */
export async function requiredBot(request: FastifyRequest): Promise<BotRow> {
  if (!request.authenticateOptionalBot)
    throw new Error(
      `${request.routeOptions.config.operationId} used requiredBot without an optional bearerAuth`,
    );
  await request.authenticateOptionalBot();
  return authenticatedBot(request);
}

/** `Authorization: Bearer <api_key>`, as bearerAuth reads it. */
export const bearerHeaderPattern = /^Bearer +(\S+) *$/i;

/**
 * The API key a bearerAuth operation was called with, its form already checked by the hook: for
 * what only the caller's own key may open (a replayed rotation, see idempotency/README.md).
 */
export function presentedApiKey(request: FastifyRequest): string {
  const key = bearerHeaderPattern.exec(request.headers.authorization ?? '')?.[1];
  if (!key)
    throw new Error(`${request.routeOptions.config.operationId} used presentedApiKey without bearerAuth`);
  return key;
}

/** The admission of an operation limited per bot; its security hook guarantees it is there. */
export function pendingAdmission(request: FastifyRequest): BotAdmission {
  if (!request.botAdmission)
    throw new Error(`${request.routeOptions.config.operationId} used pendingAdmission without its limit`);
  return request.botAdmission;
}

/** The signed-in user of a cookieAuth operation; the hook guarantees there is one. */
export function signedInUserId(request: FastifyRequest): string {
  const userId = request.session.userId;
  if (!userId)
    throw new Error(`${request.routeOptions.config.operationId} used signedInUserId without cookieAuth`);
  return userId;
}
