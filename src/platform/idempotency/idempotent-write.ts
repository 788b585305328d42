// A limited write with an Idempotency-Key, from its statement's answer to what the service answers:
// the admission settled (counted, or for a replay and a key in use only read), then the write's own
// answer, the earlier answer to replay, a 409 for a key another request was writing with, or a 422
// for a key used for another request. See README.md.
import type {
  AdmissionAnswer,
  BotAdmission,
  EarlierAnswer,
  IdempotentRequest,
} from '../admission/bot-admission.js';
import { idempotencyKeyInUse, replayable } from './idempotent-request.js';

/** What a write's statement answered: its admission, the earlier answer to its key, its own outcome. */
export type IdempotentWrite<Outcome> = Written<Outcome> | 'in_use';
type Written<Outcome> = { admission: AdmissionAnswer; earlier: EarlierAnswer | undefined } & Outcome;

/** Whether a write's statement failed because another request with its Idempotency-Key wrote first. */
function isIdempotencyKeyInUse(error: unknown): boolean {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'idempotency_keys_pkey';
}

/** Runs a write's statement; `in_use` when another request with its key wrote first (see rememberedAnswer). */
export async function idempotentWrite<Outcome>(
  statement: () => Promise<Written<Outcome>>,
): Promise<IdempotentWrite<Outcome>> {
  try {
    return await statement();
  } catch (error) {
    if (isIdempotencyKeyInUse(error)) return 'in_use';
    throw error;
  }
}

/**
 * Settles the request's admission with its write's answer, and says what to answer: the write's
 * own outcome, or the earlier answer to replay (`replay`).
 */
export async function settledWrite<Outcome>(
  admission: BotAdmission,
  request: IdempotentRequest | null,
  written: IdempotentWrite<Outcome>,
): Promise<{ written: Written<Outcome>; replay: EarlierAnswer | undefined }> {
  if (written === 'in_use') {
    // The statement took its hits back: the 409 counts nothing, and says how the limits stand.
    await admission.settleUncounted();
    throw idempotencyKeyInUse();
  }
  // A replay is answered from the counts as they stand: nothing was counted.
  admission.settle(written.admission, { counted: written.earlier === undefined });
  return { written, replay: replayable(request, written.earlier) };
}
