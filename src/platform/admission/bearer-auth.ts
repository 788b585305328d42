// Bot authentication (the spec's `bearerAuth`): resolves `Authorization: Bearer <api_key>` to its
// bot, or answers 401 with a WWW-Authenticate challenge (RFC 6750). Malformed and checksum-broken
// keys are refused before any database lookup, an expired key is unknown, and a key without the
// operation's scope is refused with 403 (./scopes.ts). A read-only bot's writes (./modes.ts) and a
// suspended bot's (./suspension.ts) are refused here, except those its operation allows.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { hashSecret, isWellFormedApiKey } from './secrets.js';
import { findKeyHolder } from './repository.js';
import { refuseOutOfScope, type ApiKeyScope } from './scopes.js';
import { refuseReadOnlyWrite } from './modes.js';
import type { Db } from '../db/schema.js';
import { ProblemError } from '../spec/problems.js';
import { bearerHeaderPattern } from './request-context.js';
import { refuseSuspendedWrite } from './suspension.js';
import type { Clock } from '../db/clock.js';

const realm = 'realm="bot-platform"';

export function bearerAuth(db: Db, clock: Clock | undefined): onRequestAsyncHookHandler {
  return async function authenticateBot(request) {
    const holder = await findKeyHolder(db, bearerKeyHash(request), clock?.() ?? null);
    if (!holder) throw unknownApiKey();
    refuseOutOfScope(request, holder.key.scopes);
    refuseReadOnlyWrite(request, holder.bot);
    refuseSuspendedWrite(request, holder.bot, clock?.() ?? new Date());
    request.bot = holder.bot;
    request.apiKey = holder.key;
  };
}

/**
 * The scopes of the request's key, if it carries a live one; undefined otherwise, never a 401 (MCP's
 * tools/list, which a client without a key may ask too).
 */
export async function callingKeyScopes(
  db: Db,
  request: FastifyRequest,
  clock: Clock | undefined,
): Promise<ApiKeyScope[] | undefined> {
  let keyHash;
  try {
    keyHash = bearerKeyHash(request);
  } catch {
    return undefined;
  }
  return (await findKeyHolder(db, keyHash, clock?.() ?? null))?.key.scopes;
}

/** The hash of the request's well-formed API key, or a 401 without asking the database. */
export function bearerKeyHash(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header)
    throw unauthorized('Send the API key as "Authorization: Bearer <api_key>".', `Bearer ${realm}`);
  const match = bearerHeaderPattern.exec(header);
  if (!match) {
    throw unauthorized(
      'The Authorization header must be "Bearer <api_key>".',
      `Bearer ${realm}, error="invalid_request"`,
    );
  }
  const key = match[1]!;
  if (!isWellFormedApiKey(key)) {
    throw unauthorized(
      'The API key is malformed or its checksum does not match.',
      invalidToken('The API key is malformed'),
    );
  }
  return hashSecret(key);
}

/** The 401 of a well-formed key no live bot holds. */
export function unknownApiKey() {
  return unauthorized(
    'The API key is not valid: it is unknown, rotated or revoked.',
    invalidToken('The API key is not valid'),
  );
}

function invalidToken(description: string) {
  return `Bearer ${realm}, error="invalid_token", error_description="${description}"`;
}

function unauthorized(detail: string, challenge: string) {
  return new ProblemError(401, 'unauthorized', detail, { headers: { 'www-authenticate': challenge } });
}
