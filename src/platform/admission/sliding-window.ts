// The exact per-bot rolling-window limits: a sliding log in Postgres (rate_limit_hits, one row per
// counted request, with each key's count and newest hit in its rate_limit_windows row, the row a
// request locks), one atomic rate_limit_hit() call per request, shared by every server instance on
// the database. This module is the store @fastify/rate-limit calls, the quota getOwnBot reports,
// and the pruning of old hits.
import { sql } from 'kysely';
import type { components } from '../../../generated/openapi.js';
import type { RateLimitAction } from '../../config.js';
import type { Db } from '../db/schema.js';
import { ProblemError, unavailable } from '../spec/problems.js';
import type { Clock } from '../db/clock.js';
import { trustLevelNames } from './bot-limits.js';

/** The published interface's rolling hour. */
export const windowSeconds = 3600;
const windowMs = windowSeconds * 1000;

type Quota = components['schemas']['Quota'];

/** A limit a request is counted against: its key in rate_limit_hits and its maximum per window. */
export interface CountedLimit {
  key: string;
  max: number;
}

/** What rate_limit_hit() answered for one limit. */
export interface LimitHit {
  /** Requests in the window, counting this one when it was recorded (max + 1 when refused). */
  current: number;
  /** Milliseconds until the oldest counted request leaves the window. */
  ttl: number;
}

async function hit(db: Db, key: string, now: Date | null, max: number, record: boolean): Promise<LimitHit> {
  const { rows } = await sql<{ current: number; ttl_ms: string }>`
    select current, ttl_ms from rate_limit_hit(${key}, ${now}, ${windowMs}, ${max}, ${record})`.execute(db);
  const row = rows[0]!;
  return { current: row.current, ttl: Number(row.ttl_ms) };
}

type StoreCallback = (error: Error | null, result?: LimitHit) => void;

/**
 * The store class @fastify/rate-limit instantiates. A failing store refuses the request with 503:
 * a limiter that cannot count must not let requests through.
 */
export function slidingWindowStore(db: Db, clock: Clock | undefined) {
  const call =
    (record: boolean) => (key: string, callback: StoreCallback, _timeWindow: number, max: number) => {
      hit(db, key, clock?.() ?? null, max, record).then(
        (result) => callback(null, result),
        (error: unknown) => callback(limiterUnavailable(error)),
      );
    };
  return class SlidingWindowStore {
    incr = call(true);
    read = call(false);
    child() {
      return new SlidingWindowStore();
    }
  };
}

/** The 503 of a limiter that cannot count: it must not let requests through. */
export function limiterUnavailable(cause: unknown) {
  return unavailable(
    'The rate limiter cannot count right now, so the request was not admitted. Retry shortly.',
    cause,
  );
}

/** What a bot action's cap per client IP is named by: its action and this (`posts-per-ip`). */
export const clientIpCapSuffix = '-per-ip';

/** The limits counted per client address rather than per bot or person (x-rate-limit's `per`). */
const perAddress = new Set(['registrations', 'sign-in-mails']);

/** Which limit a 429 is about, as its answer names it: "The posts limit", "The limit on registrations from this address". */
function limitInWords(limitName: string | undefined): string {
  if (!limitName) return 'The limit';
  const shared = limitName.endsWith(clientIpCapSuffix);
  const action = shared ? limitName.slice(0, -clientIpCapSuffix.length) : limitName;
  const words = action.replaceAll('-', ' ');
  if (shared) return `The limit on ${words} from this client address (every bot sending from it together)`;
  return perAddress.has(action) ? `The limit on ${words} from this client address` : `The ${words} limit`;
}

/**
 * The one 429 of every limit, the limiter plugin's and consumeQuota's: what was used up and when to
 * retry, named `limitName` for metrics. `headers` adds the X-RateLimit pair where the plugin does not.
 * A bot on probation is told so, and until when (`probationUntil`); a bot's limit is its trust
 * level's (`trustLevel`), which the answer names.
 */
export function tooManyRequests(
  max: number,
  ttlMs: number,
  limitName: string | undefined,
  headers: Record<string, number | string> = {},
  probationUntil: Date | null = null,
  trustLevel?: number,
): ProblemError {
  const retryAfter = Math.max(1, Math.ceil(ttlMs / 1000));
  const probation = probationUntil
    ? ` This bot is on probation until ${probationUntil.toISOString()}: an unclaimed new bot has lower` +
      ' limits until then, and claiming it lifts them.'
    : trustLevel === undefined
      ? ''
      : ` This bot's trust level is ${trustLevel} (${trustLevelNames[trustLevel]}), whose limit this is; getOwnBot says what raises it.`;
  return new ProblemError(
    429,
    'rate_limited',
    `${limitInWords(limitName)} (${max} per ${windowSeconds} seconds) is used up; retry in ${retryAfter} seconds.${probation}`,
    {
      headers: { 'retry-after': retryAfter, ...headers },
      extensions: {
        limit: max,
        window_seconds: windowSeconds,
        retry_after_seconds: retryAfter,
        ...(probationUntil ? { probation_until: probationUntil.toISOString() } : {}),
        ...(trustLevel === undefined ? {} : { trust_level: trustLevel }),
      },
      limitName,
    },
  );
}

export function rateLimitKey(action: RateLimitAction, subject: string) {
  return `${action}:${subject}`;
}

/**
 * Counts one request against `key` outside the limiter plugin (limits that need the body, such as
 * sign-in mails per address, or a second limit on one route, such as the per-IP cap), or refuses it
 * with the same 429 the limiter plugin sends, named `limitName` for metrics. The key is `name:subject`.
 */
export async function consumeQuota(
  db: Db,
  limitName: string,
  subject: string,
  max: number,
  clock: Clock | undefined,
): Promise<void> {
  let result: LimitHit;
  try {
    result = await hit(db, `${limitName}:${subject}`, clock?.() ?? null, max, true);
  } catch (error) {
    throw limiterUnavailable(error);
  }
  if (result.current <= max) return;
  throw tooManyRequests(max, result.ttl, limitName, { 'x-ratelimit-limit': max, 'x-ratelimit-remaining': 0 });
}

/**
 * What is left of one action for a bot sending from one address, read without consuming any: a
 * request needs both the bot's own limit and its client IP's cap (see bot-admission.ts), so
 * `remaining` is the lesser of the two, and when it is 0 the retry waits for each that is used up.
 * `own.max` is the bot's limit in probation while `probation` lasts.
 */
export async function readQuota(
  db: Db,
  own: CountedLimit,
  cap: CountedLimit,
  clock: Clock | undefined,
  probation?: { until: Date; msLeft: number },
): Promise<Quota> {
  const now = clock?.() ?? null;
  let hits: [LimitHit, LimitHit];
  try {
    hits = await Promise.all([hit(db, own.key, now, own.max, false), hit(db, cap.key, now, cap.max, false)]);
  } catch (error) {
    throw limiterUnavailable(error);
  }
  const [ownLeft, capLeft] = [own, cap].map((limit, i) => Math.max(0, limit.max - hits[i]!.current)) as [
    number,
    number,
  ];
  const remaining = Math.min(ownLeft, capLeft);
  const waitFor = (left: number, { ttl }: LimitHit) => (left === 0 ? Math.ceil(ttl / 1000) : 0);
  // A probation's end frees the bot's own limit as surely as its oldest hit leaving the window.
  const probationEnds = probation ? Math.ceil(probation.msLeft / 1000) : Infinity;
  return {
    limit: own.max,
    remaining,
    retry_after_seconds:
      remaining === 0
        ? Math.max(1, Math.min(waitFor(ownLeft, hits[0]), probationEnds), waitFor(capLeft, hits[1]))
        : null,
    client_ip_cap: { limit: cap.max, remaining: capLeft },
    probation_until: probation?.until.toISOString() ?? null,
  };
}

/**
 * Deletes the windows whose newest hit has left the window, with their hits: the keys nobody has
 * used for a window. A key in use prunes its own expired hits on each counted request. A window a
 * request holds is skipped (the request keeps it), so pruning never waits on a request nor
 * deadlocks with one that holds two keys.
 */
export async function pruneRateLimitHits(db: Db, clock: Clock | undefined): Promise<number> {
  const now = clock?.() ?? null;
  const { rows } = await sql<{ deleted: string }>`
    with stale as (
      select key from rate_limit_windows
      where newest is null
         or newest <= coalesce(${now}::timestamptz, now()) - make_interval(secs => ${windowSeconds})
      for update skip locked
    ), windows as (
      delete from rate_limit_windows w using stale where w.key = stale.key returning w.key
    ), hits as (
      delete from rate_limit_hits h using windows where h.key = windows.key returning 1
    )
    select count(*) as deleted from hits`.execute(db);
  return Number(rows[0]?.deleted ?? 0);
}
