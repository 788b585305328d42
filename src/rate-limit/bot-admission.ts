// The admission of a request to an operation limited per bot (post, comment, vote, submit): its
// key, the client IP's cap and the bot's own limit, checked and counted by the same statement that
// makes the write, so the write costs one round trip and one commit. The security hook asks
// (plugins/rate-limit.ts), the area's write statement answers (its repository starts from the
// admission query of bots/repository.ts), and the hook's settle() turns the answer into a 401, a
// 429 or the X-RateLimit headers.
import type { LimitHit } from './sliding-window.js';

/** A limit a request is counted against: its key in rate_limit_hits and its maximum per window. */
export interface CountedLimit {
  key: string;
  max: number;
}

/** What the admission query is asked. */
export interface AdmissionAsk {
  /** The hash of the request's well-formed API key. */
  keyHash: string;
  /**
   * The client IP's cap, counted first, and the bot's own limit (`<action>:<bot id>`), counted only
   * when the cap admitted the request. Null when rate limiting is off (the limiter's benchmark): the
   * statement then only looks the key up.
   */
  limits: {
    perIp: CountedLimit;
    action: string;
    max: number;
    windowMs: number;
    /** A test's clock; null: the database's. */
    now: Date | null;
  } | null;
}

/** What it answered: the two limits' hits, or undefined for a key no live bot holds. */
export type AdmissionAnswer = { perIp: LimitHit; own: LimitHit } | undefined;

/**
 * A request's admission, settled exactly once: by its write's statement (`settle`, with that
 * statement's answer), or, when the request fails before its write ran (a body that does not parse
 * or validate, a blank title), by the error handler (`settleAlone`, the admission query on its
 * own), so that 401 and 429 still win over 400 and every response of a known bot counts.
 */
export interface BotAdmission {
  readonly ask: AdmissionAsk;
  readonly settled: boolean;
  /** Throws the 401 or 429 the answer means; otherwise the X-RateLimit headers go on the reply. */
  settle(answer: AdmissionAnswer): void;
  /** The admission query alone, then settle: for a request that fails before its write. */
  settleAlone(): Promise<void>;
}
