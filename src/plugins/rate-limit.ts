// Per-bot rolling-hour limits through @fastify/rate-limit, with our exact Postgres store. Which
// operations are limited, and per what, is declared in openapi.yaml (`x-rate-limit`); the route
// registrar turns that into route config via routeRateLimit(). The limiter's hook is appended to
// the route's onRequest hooks, after authentication: a 401 counts for no one, and every request
// of a known bot counts before its body is even parsed.
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { Db } from '../db/schema.js';
import type { RateLimitExtension } from '../openapi.js';
import {
  consumeQuota,
  pruneRateLimitHits,
  rateLimitKey,
  slidingWindowStore,
  tooManyRequests,
  windowSeconds,
  type Clock,
} from '../rate-limit/sliding-window.js';
import { authenticatedBot, signedInUserId } from '../request-context.js';

const pruneEveryMs = 60_000;

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

    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        pruneRateLimitHits(db, clock).catch((error: unknown) =>
          app.log.warn({ err: error }, 'pruning rate-limit hits failed'),
        );
      }, pruneEveryMs).unref();
    });
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'rate-limit', dependencies: ['errors'] },
);

/** The route config of an operation limited by `x-rate-limit`. */
export function routeRateLimit(extension: RateLimitExtension, limits: RouteLimits) {
  return {
    max: limits[extension.action],
    timeWindow: windowSeconds * 1000,
    keyGenerator: (request: FastifyRequest) =>
      rateLimitKey(extension.action, limitedParty(extension.per, request)),
  };
}

/**
 * The cap per client IP on an action limited per bot: `factor` times the bot's limit, so that one
 * client registering many bots does not multiply its rate by their number. It runs before the
 * bot's own limit (a request it refuses does not count for the bot) and counts every authenticated
 * attempt. Undefined for operations limited per user or per IP already.
 */
export function clientIpCap(
  extension: RateLimitExtension,
  limits: RouteLimits,
  factor: number,
  db: Db,
  clock: Clock | undefined,
): onRequestAsyncHookHandler | undefined {
  if (extension.per !== 'bot') return undefined;
  const max = limits[extension.action] * factor;
  const limitName = `${extension.action}-per-ip`;
  return async function capPerClientIp(request) {
    await consumeQuota(db, limitName, normalizeIP(request.ip, 64), max, clock);
  };
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
  return normalizeIP(request.ip, 64);
}
