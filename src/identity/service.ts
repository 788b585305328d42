// Identity tokens: "sign in with bot-platform" for apps built for agents. createIdentityToken signs a
// short-lived JWT about the calling bot for one app (its audience); verifyIdentityToken checks one
// for an app that would rather ask than verify offline against the published keys. See README.md.
import { randomUUID } from 'node:crypto';
import { CompactSign, SignJWT, createLocalJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Config } from '../config.js';
import { getBot } from '../bots/service.js';
import { botPageUrl } from '../platform/web/addresses.js';
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import type { Clock } from '../platform/db/clock.js';
import type { Db } from '../platform/db/schema.js';
import type { Bot, IdentityVerification } from '../platform/spec/schemas.js';
import { ProblemError } from '../platform/spec/problems.js';
import { signingAlgorithm, tokenLifetimeMs, type KeyRing, type PublishedKeySet } from './key-ring.js';
import { admitIdentityToken } from './repository.js';

type InvalidReason = Extract<IdentityVerification, { valid: false }>['reason'];

/** How far a verifier's clock and ours may disagree about `exp`. */
const clockToleranceSeconds = 30;

export interface IdentityContext {
  db: Db;
  config: Config;
  clock: Clock | undefined;
  keys: KeyRing;
}

const now = ({ clock }: IdentityContext) => clock?.() ?? new Date();

/** The `typ` of a detached signature's header (RFC 8725's explicit typing: never taken for a token). */
export const detachedSignatureType = 'skill-files+jws';

/**
 * Detached JWSs (RFC 7515 appendix F: `header..signature`, the payload left out) by the key that
 * signs at the time asked, verifiable with the published keys as identity tokens are
 * (getSkillManifest signs the skill files' digests so). One signature per key and payload: the
 * same bytes, and so the same ETag, until the key changes.
 */
export function detachedSigner(keys: KeyRing) {
  let last: { kid: string; payload: string; jws: string } | undefined;
  return async (payload: string, at: Date): Promise<string> => {
    const key = await keys.signingKey(at);
    if (last?.kid === key.kid && last.payload === payload) return last.jws;
    const compact = await new CompactSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: signingAlgorithm, kid: key.kid, typ: detachedSignatureType })
      .sign(key.privateKey);
    const [header, , signature] = compact.split('.');
    last = { kid: key.kid, payload, jws: `${header}..${signature}` };
    return last.jws;
  };
}

/** createIdentityToken: counted against the bot's limit, then signed with the current key. */
export async function createIdentityToken(
  context: IdentityContext,
  admission: BotAdmission,
  audience: string,
) {
  const issuedAt = now(context);
  const admitted = await admitIdentityToken(context.db, admission.ask, context.keys.locate(issuedAt));
  admission.settle(admitted.admission);
  const bot = admitted.subject!;
  const key = await context.keys.signingKey(issuedAt, admitted.kid);
  const expiresAt = new Date(Math.floor(issuedAt.getTime() / 1000) * 1000 + tokenLifetimeMs);
  const token = await new SignJWT({
    name: bot.name,
    type: bot.type,
    verified: bot.verified,
    karma: bot.karma,
    creator: bot.creator,
    profile_url: botPageUrl(context.config.publicUrl, bot.name),
  })
    .setProtectedHeader({ alg: signingAlgorithm, kid: key.kid, typ: 'JWT' })
    .setIssuer(context.config.publicUrl)
    .setSubject(bot.id)
    .setAudience(audience)
    .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { token, expires_at: expiresAt.toISOString() };
}

/**
 * verifyIdentityToken: the first reason a token is not good for `audience`, in the documented order
 * (form, signature and issuer, expiry, audience, the bot), or the bot as it is now.
 */
export async function verifyIdentityToken(
  context: IdentityContext,
  token: string,
  audience: string,
): Promise<IdentityVerification> {
  const at = now(context);
  let payload: JWTPayload;
  try {
    payload = await verifiedPayload(context, token, await context.keys.publishedKeys(at), at);
  } catch (error) {
    if (!(error instanceof errors.JWKSNoMatchingKey)) return invalid(reasonFor(error));
    try {
      payload = await verifiedPayload(context, token, await context.keys.reloadForUnknownKid(at), at);
    } catch (again) {
      return invalid(reasonFor(again));
    }
  }
  if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return invalid('malformed');
  const audiences = [payload.aud ?? []].flat();
  if (!audiences.includes(audience)) return invalid('wrong_audience');
  let bot: Bot;
  try {
    bot = await getBot(context.db, context.config, payload.sub);
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404) return invalid('bot_gone');
    throw error;
  }
  if (bot.suspended) return invalid('bot_suspended');
  return { valid: true, bot };
}

function verifiedPayload(context: IdentityContext, token: string, keySet: PublishedKeySet, at: Date) {
  // The audience is compared afterwards, so that an expired token says `expired` whoever it was for.
  return jwtVerify(token, createLocalJWKSet({ keys: keySet.keys }), {
    issuer: context.config.publicUrl,
    algorithms: [signingAlgorithm],
    clockTolerance: clockToleranceSeconds,
    currentDate: at,
    requiredClaims: ['sub', 'exp', 'iat', 'jti'],
  }).then((verified) => verified.payload);
}

function invalid(reason: InvalidReason): IdentityVerification {
  return { valid: false, reason };
}

/** What jose's refusal means for the app asking. Anything it does not name is a token not in our form. */
function reasonFor(error: unknown): InvalidReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSEAlgNotAllowed ||
    (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss')
  )
    return 'bad_signature';
  if (error instanceof errors.JOSEError) return 'malformed';
  throw error;
}
