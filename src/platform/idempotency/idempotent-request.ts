// What a request with an Idempotency-Key is, before its statement runs: the key, and a hash of the
// operation and everything it asks (path values and body, key order ignored), so that a retry is
// recognised as the same request and a reuse of the key for another request is not. And what a
// replay needs: the remembered answer row revived (its timestamps were JSON strings), and, for a
// key rotation, the new key sealed with the key that asked for it (see README.md).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { ProblemError } from '../spec/problems.js';
import type { EarlierAnswer, IdempotentRequest } from '../admission/bot-admission.js';

/** An operation's answer, and whether it is the earlier answer to the request's Idempotency-Key. */
export interface Answered<T> {
  answer: T;
  replayed: boolean;
}

/** The headers of an answer: `Idempotent-Replayed: true` on a replay. */
export function replayHeaders(replayed: boolean): Record<string, string> {
  return replayed ? { 'idempotent-replayed': 'true' } : {};
}

/**
 * The idempotent form of a request to `operationId`, or null when it sent no Idempotency-Key (the
 * spec's header parameter has already checked the key's form).
 */
export function idempotentRequest(
  operationId: string,
  key: string | undefined,
  request: unknown,
): IdempotentRequest | null {
  if (key === undefined) return null;
  const requestHash = createHash('sha256')
    .update(`${operationId}\n${canonicalJson(request)}`)
    .digest('hex');
  return { key, requestHash };
}

/** JSON with every object's keys sorted: one text for one value, however its keys were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The earlier answer to replay, when the request carries the key it was made with; a 422 when the
 * key was used for another request.
 */
export function replayable(
  request: IdempotentRequest | null,
  earlier: EarlierAnswer | undefined,
): EarlierAnswer | undefined {
  if (!request || !earlier) return undefined;
  if (earlier.requestHash !== request.requestHash) throw idempotencyKeyReused();
  return earlier;
}

/** The 422 of a key that was used for another request. */
export function idempotencyKeyReused(): ProblemError {
  return new ProblemError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was used for another request (another operation, body or API key); use a new key for a new request.',
  );
}

/** The 409 of a repeat that arrived while the request with its key was still being written. */
export function idempotencyKeyInUse(): ProblemError {
  return new ProblemError(
    409,
    'idempotency_key_in_use',
    'A request with this Idempotency-Key was still being processed when this one arrived; retry to get its answer.',
  );
}

/**
 * A remembered answer row as the database driver would have returned it: `dates` are the columns
 * that are timestamps (JSON keeps them as strings; both truncate to milliseconds the same way).
 */
export function revivedRow<Row>(
  response: Record<string, unknown>,
  dates: readonly (keyof Row & string)[],
): Row {
  const row: Record<string, unknown> = { ...response };
  for (const column of dates) {
    const value = row[column];
    if (typeof value === 'string') row[column] = new Date(value);
  }
  return row as Row;
}

const sealVersion = 'v1';
const sealInfo = 'bot-platform idempotent replay of rotateOwnKey';

/**
 * A secret kept for a replay only its asker can open: AES-256-GCM under a key derived (HKDF-SHA256)
 * from the API key that asked. The database holds only the sealed form and that key's hash.
 */
export function sealForReplay(askingApiKey: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', replayKey(askingApiKey), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${sealVersion}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/** The secret sealForReplay sealed, opened with the same API key (which a replay must present). */
export function openReplay(askingApiKey: string, sealed: string): string {
  const [version, payload] = sealed.split('.');
  if (version !== sealVersion || !payload) throw new Error('unknown seal version');
  const bytes = Buffer.from(payload, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', replayKey(askingApiKey), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

function replayKey(apiKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', apiKey, Buffer.alloc(0), sealInfo, 32));
}
