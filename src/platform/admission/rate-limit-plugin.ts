// The rolling-hour limits, exact, counted in Postgres. Which operations are limited, and per what, is
// declared in openapi.yaml (`x-rate-limit`). Operations limited per bot are admitted by the write's
// own statement (botAdmission: the key, the client IP's cap and the bot's limit, checked and
// counted where the write is made); those limited per user or per client IP go through
// @fastify/rate-limit with our store, its hook appended to the route's onRequest hooks after
// authentication. Either way a 401 counts for no one, and every response of a known bot counts,
// a 400 for a body that never reached the write included (the error handler settles it).
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { Db } from '../db/schema.js';
import type { BotMode } from '../spec/schemas.js';
import type { RateLimitExtension } from '../spec/openapi.js';
import { admitBotByApiKeyHash, findBotByApiKeyHash, peekBotAdmission } from './repository.js';
import {
  limiterUnavailable,
  rateLimitKey,
  slidingWindowStore,
  tooManyRequests,
  windowSeconds,
} from './sliding-window.js';
import type { Clock } from '../db/clock.js';
import {
  clientIpCap,
  clientIpCapName,
  type AdmissionAnswer,
  type AdmissionAsk,
  type BotAdmission,
} from './bot-admission.js';
import { authenticatedBot, signedInUserId } from './request-context.js';
import { levelLimits, type BotLimitSettings } from './bot-limits.js';
import { bearerKeyHash, unknownApiKey } from './bearer-auth.js';
import { admissionRefusal, type ApiKeyScope } from './scopes.js';

/** Each `x-rate-limit` action's limit per rolling hour. */
export type RouteLimits = Record<RateLimitExtension['action'], number>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The limit a limited route's 429 names in metrics: its action (`posts`, `registrations`, ...). */
    limitName?: string;
  }
}

export default fp<{ db: Db; clock: Clock | undefined }>(
  async function rateLimiting(app: FastifyInstance, { db, clock }) {
    await app.register(rateLimit, {
      global: false,
      hook: 'onRequest',
      store: slidingWindowStore(db, clock),
      // The interface's headers: limit and remaining always, Retry-After on 429 only, no reset.
      addHeadersOnExceeding: { 'x-ratelimit-reset': false },
      addHeaders: { 'x-ratelimit-reset': false },
      // The plugin sets Retry-After and the X-RateLimit pair itself.
      errorResponseBuilder: (request, context) =>
        tooManyRequests(context.max, context.ttl, request.routeOptions.config.limitName),
    });
  },
  { name: 'rate-limit', dependencies: ['errors'] },
);

/**
 * The route config of an operation limited by `x-rate-limit`, or of a page form that mirrors it (the
 * same key, so the two ways in share one count). A limit per user counts no one who is not signed
 * in: an API operation limited per user refuses them before (cookieAuth), and its page form does none
 * of the operation's work for them (it sends them to sign in, or scores the creators' test unsaved).
 */
export function routeRateLimit(extension: RateLimitExtension, limits: RouteLimits) {
  const signedOut = (request: FastifyRequest) => extension.per === 'user' && !request.session.userId;
  return {
    max: limits[extension.action],
    timeWindow: windowSeconds * 1000,
    // Asked before allowList, so it must answer for a signed-out request too.
    keyGenerator: (request: FastifyRequest) =>
      signedOut(request)
        ? 'signed-out'
        : rateLimitKey(extension.action, limitedParty(extension.per, request)),
    ...(extension.per === 'user' ? { allowList: signedOut } : {}),
  };
}

/**
 * The onRequest hook of an operation limited per bot. It refuses a missing or malformed key with
 * 401 without asking the database, and otherwise leaves the request's admission pending
 * (request.botAdmission): the operation's write statement checks the key, counts the request
 * against the client IP's cap and the bot's own limit (both or neither) and writes, in one round
 * trip and one commit (see src/platform/admission/bot-admission.ts). Settled, the admission answers as the
 * limiter would: 401 for an unknown key (counted against nothing); 429 `<action>` when the bot has
 * used its own limit; 429 `<action>-per-ip` when the client IP has used `factor` times the bot's
 * limit (so that one client registering many bots does not multiply its rate by their number);
 * either 429 counts against neither limit, and when both are used up it names the bot's own and its
 * Retry-After waits for both. Admitted, the X-RateLimit pair of the bot's limit, whose remaining is
 * what is left of it or of the address's cap, whichever is less. Without `limits` (rate limiting
 * off, the limiter's benchmark) the statement only looks the key up.
 */
export function botAdmission(
  extension: RateLimitExtension,
  scope: ApiKeyScope | undefined,
  limits: RouteLimits | undefined,
  factor: number,
  settings: BotLimitSettings,
  db: Db,
  clock: Clock | undefined,
): onRequestAsyncHookHandler | undefined {
  if (extension.per !== 'bot') return undefined;
  const max = limits?.[extension.action] ?? 0;
  const ipLimitName = clientIpCapName(extension.action);
  const levels = levelLimits(settings, extension.action, max);
  return async function admitBot(request, reply) {
    // The address's cap is the published limit's multiple: a bot's trust level is its own.
    const perIp = clientIpCap(extension.action, max, factor, request.ip);
    const ask: AdmissionAsk = {
      keyHash: bearerKeyHash(request),
      limits: limits
        ? {
            perIp,
            action: extension.action,
            levels,
            windowMs: windowSeconds * 1000,
            now: clock?.() ?? null,
            probationHours: settings.probation.hours,
            trust: settings.trust.enabled,
          }
        : null,
      scope: scope ?? null,
      idempotency: null,
    };
    let settled = false;
    const admission: BotAdmission = {
      ask,
      get settled() {
        return settled;
      },
      settle(answer, { counted = true } = {}) {
        settled = true;
        if (!answer) throw unknownApiKey();
        if (!ask.limits) return;
        // The bot's limit as its admission found it: its trust level's (a probation is level 0).
        const ownMax = answer.ownMax ?? max;
        const level = answer.trustLevel === null ? undefined : answer.trustLevel;
        const probationHeader = { ...probationHeaders(answer.probationUntil), ...modeHeaders(answer.mode) };
        // Counts read without counting (a replay, a key in use) refuse nothing, even above a limit
        // lowered since (a probation turned on): the request asked for nothing new.
        const ipRefused = counted && answer.perIp.current > perIp.max;
        const ownRefused = counted && answer.own.current > ownMax;
        if (ownRefused || ipRefused) {
          const ttl = Math.max(ownRefused ? answer.own.ttl : 0, ipRefused ? answer.perIp.ttl : 0);
          if (ownRefused)
            throw tooManyRequests(
              ownMax,
              ttl,
              extension.action,
              { ...limitHeaders(ownMax, 0), ...probationHeader },
              answer.probationUntil,
              level,
            );
          throw tooManyRequests(perIp.max, ttl, ipLimitName, {
            ...limitHeaders(perIp.max, 0),
            ...probationHeader,
          });
        }
        const remaining = Math.min(ownMax - answer.own.current, perIp.max - answer.perIp.current);
        // A reply the loop breaker refused has these headers too: its comments were not counted.
        reply.headers({ ...limitHeaders(ownMax, remaining), ...probationHeader });
      },
      async settleAlone() {
        if (!settled) await settleBy(admitBotByApiKeyHash);
      },
      async settleAndIdentify() {
        await admission.settleAlone();
        const bot = await findBotByApiKeyHash(db, ask.keyHash);
        if (!bot) throw unknownApiKey();
        request.bot = bot;
        return bot;
      },
      settleUncounted: () => settleBy(peekBotAdmission, false),
    };
    /** Settles with the answer of an admission query of its own (a 503 when the limiter cannot count). */
    async function settleBy(query: (db: Db, ask: AdmissionAsk) => Promise<AdmissionAnswer>, counted = true) {
      let answer;
      try {
        answer = await query(db, ask);
      } catch (error) {
        settled = true;
        // A suspended bot's or an out-of-scope key's admission refuses it (./scopes.ts); any other
        // failure is the limiter's.
        throw admissionRefusal(error, request) ?? limiterUnavailable(error);
      }
      admission.settle(answer, { counted });
    }
    request.botAdmission = admission;
  };
}

function limitHeaders(limit: number, remaining: number) {
  return { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': Math.max(0, remaining) };
}

/** While a bot is on probation, every answer of its limited writes says until when. */
function probationHeaders(until: Date | null): Record<string, string> {
  return until ? { 'x-ratelimit-probation-until': until.toISOString() } : {};
}

/** A bot its creator reviews or keeps read only says so in its limited writes' answers; an open bot's say nothing. */
function modeHeaders(mode: BotMode | null): Record<string, string> {
  return mode && mode !== 'open' ? { 'x-bot-mode': mode } : {};
}

/**
 * Who a limit counts against: the authenticated bot, the signed-in human (their user id; ids of
 * users and bots are both random UUIDs, so their keys never meet), or the client IP as the
 * plugin's own default groups them: IPv6 by /64, so one host cannot rotate through its network's
 * addresses for fresh quota.
 */
function limitedParty(per: RateLimitExtension['per'], request: FastifyRequest): string {
  if (per === 'bot') return authenticatedBot(request).id;
  if (per === 'user') return signedInUserId(request);
  return clientAddress(request);
}

/** The client IP as limits count it: IPv6 by /64, so one host cannot rotate through its network's addresses. */
export function clientAddress(request: FastifyRequest): string {
  return normalizeIP(request.ip, 64);
}
