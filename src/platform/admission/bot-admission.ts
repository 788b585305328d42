// The admission of a request to an operation limited per bot (post, comment, vote, submit): its
// key, the client IP's cap and the bot's own limit, checked and counted (both or neither) by the
// same statement that makes the write, so the write costs one round trip and one commit. The security hook asks
// (platform/admission/rate-limit-plugin.ts), the area's write statement answers (its repository's statement starts
// with withAdmission, ./repository.ts), and the hook's settle() turns the answer into a 401, a
// 429 or the X-RateLimit headers.
import { normalizeIP } from '@fastify/rate-limit';
import { clientIpCapSuffix, type CountedLimit, type LimitHit } from './sliding-window.js';
import type { LevelLimits } from './bot-limits.js';
import type { BotRow } from '../db/schema.js';
import type { BotMode } from '../spec/schemas.js';
import type { ApiKeyScope } from './scopes.js';

/** What the store counts in: a Postgres integer. */
const largestCount = 2 ** 31 - 1;

/** The name of a bot action's cap per client IP, in its keys, its 429 and metrics: `posts-per-ip`. */
export function clientIpCapName(action: string): string {
  return `${action}${clientIpCapSuffix}`;
}

/**
 * A bot action's cap per client IP: `factor` times the bot's own limit, shared by every bot sending
 * from the address (grouped as @fastify/rate-limit groups them: IPv6 by /64, so that one host cannot
 * rotate through its network's addresses for fresh quota). A cap past what the store counts (a
 * factor lifted to "unlimited") is no cap, rather than a statement that fails on every write.
 */
export function clientIpCap(action: string, botMax: number, factor: number, ip: string): CountedLimit {
  return {
    key: `${clientIpCapName(action)}:${normalizeIP(ip, 64)}`,
    max: Math.min(botMax * factor, largestCount),
  };
}

/** The answer remembered for a bot's key: the hash of the request that made it, and its row as JSON. */
export interface EarlierAnswer {
  requestHash: string;
  response: Record<string, unknown>;
}

/** A request's Idempotency-Key and the hash of what it asks (see src/platform/idempotency/). */
export interface IdempotentRequest {
  key: string;
  requestHash: string;
}

/** What the admission query is asked. */
export interface AdmissionAsk {
  /** The hash of the request's well-formed API key. */
  keyHash: string;
  /**
   * The client IP's cap and the bot's own limit (`<action>:<bot id>`): the request is counted against
   * both or neither (rate_limit_hit_both), so a request either limit refuses uses up neither. Null
   * when rate limiting is off (the limiter's benchmark): the statement then only looks the key up.
   */
  limits: {
    perIp: CountedLimit;
    action: string;
    /** The bot's limit at each trust level (bot-limits.ts); bot_admission() picks the bot's. */
    levels: LevelLimits;
    windowMs: number;
    /** A test's clock; null: the database's. */
    now: Date | null;
    /** An unclaimed bot younger than this is on probation, level 0 (PROBATION_HOURS; 0: none). */
    probationHours: number;
    /** Trust levels on: the bot's computed level counts; off, every bot off probation is level 1. */
    trust: boolean;
  } | null;
  /** The scope the operation needs of the key (./scopes.ts); null: any key. */
  scope: ApiKeyScope | null;
  /**
   * The request's Idempotency-Key with the hash of what it asks (null without one; the operation's
   * service fills it in): a key the bot used before answers from its earlier answer, counted
   * against nothing and writing nothing.
   */
  idempotency: IdempotentRequest | null;
}

/**
 * What it answered: the limits' hits, the bot's limit it was counted against (its trust level's;
 * null when limits are off) and when its probation ends (null: none), or undefined for a key no
 * live bot holds.
 */
export type AdmissionAnswer =
  | {
      perIp: LimitHit;
      own: LimitHit;
      ownMax: number | null;
      probationUntil: Date | null;
      /** The level whose limit the bot was counted against (null when limits are off). */
      trustLevel: number | null;
      /** The bot's mode as its admission found it (null when limits are off): its limits' headers say it unless `open`. */
      mode: BotMode | null;
      /** A reply's conversation (the loop breaker): the bot answered and the pair's count in the thread. */
      conversation: (LimitHit & { withBotId: string }) | null;
    }
  | undefined;

/**
 * A request's admission, settled exactly once: by its write's statement (`settle`, with that
 * statement's answer), or, when the request fails before its write ran (a body that does not parse
 * or validate, a blank title), by the error handler (`settleAlone`, the admission query on its
 * own), so that 401 and 429 still win over 400 and every response of a known bot counts.
 */
export interface BotAdmission {
  readonly ask: AdmissionAsk;
  readonly settled: boolean;
  /**
   * Throws the 401 or 429 the answer means; otherwise the X-RateLimit headers go on the reply. An
   * answer `counted: false` (the counts as they stand: a replay) is never a 429.
   */
  settle(answer: AdmissionAnswer, options?: { counted?: boolean }): void;
  /** The admission query alone, then settle: for a request that fails before its write. */
  settleAlone(): Promise<void>;
  /**
   * settleAlone, then the calling bot (a 401 if its key went meanwhile): for an operation whose
   * work needs to know who calls before it writes, in several statements (moderateCommunity).
   */
  settleAndIdentify(): Promise<BotRow>;
  /**
   * Settles with the limits' counts as they stand, counting nothing: for a request whose write's
   * statement failed and took its hits back with it (a repeated Idempotency-Key, see idempotency/).
   */
  settleUncounted(): Promise<void>;
}
