// Every periodic job of the server, in one list: its name, how often it ticks, and whether it runs on
// one instance (once per period however many share the database; claimed in periodic_jobs) or on
// every instance (for what that instance holds). src/platform/jobs/plugin.ts runs them. A job's work
// is its area's or mechanism's own function; its interval and its reason are here.
import type { FastifyInstance } from 'fastify';
import { pruneExpiredSignInTokens } from './auth/repository.js';
import { pruneFeedEvents } from './feed/repository/feed-events.js';
import { prunePostBodyHashes } from './feed/repository/posts.js';
import { liftEndedSuspensions } from './moderation/service/actions.js';
import { pruneRateLimitHits } from './platform/admission/sliding-window.js';
import type { Clock } from './platform/db/clock.js';
import type { Db } from './platform/db/schema.js';
import { keepAliveMs } from './platform/event-streams/hub.js';
import { pruneIdempotencyKeys } from './platform/idempotency/retention.js';
import type { Job } from './platform/jobs/plugin.js';
import { pruneExpiredSessions } from './platform/sessions/repository.js';
import { expirePendingItems } from './review/repository.js';
import { pruneDeliveries } from './webhooks/repository.js';
import type { Config, MessageSettings, WebhookSettings } from './config.js';
import { forgetConversations } from './messages/repository.js';
import { recomputeAllTrust } from './trust/service.js';

const minute = 60_000;

/** Deliveries done (delivered or failed) are kept this long for listWebhookDeliveries. */
const keepDeliveriesDays = 30;

export function backgroundJobs(
  app: FastifyInstance,
  {
    db,
    clock,
    webhooks,
    trust,
    messages,
  }: {
    db: Db;
    clock: Clock | undefined;
    webhooks: WebhookSettings;
    trust: Pick<Config, 'probation' | 'trust'>;
    messages: Pick<MessageSettings, 'retentionDays'>;
  },
): Job[] {
  const now = () => clock?.() ?? new Date();
  const worker = app.webhookWorker;
  return [
    // ---- One instance per period: upkeep of what every instance shares.
    // The rate limits' log looks back an hour; what is older counts for nothing.
    {
      name: 'prune-rate-limit-hits',
      everyMs: minute,
      runsOn: 'one instance',
      run: () => pruneRateLimitHits(db, clock),
    },
    {
      name: 'prune-sessions',
      everyMs: 10 * minute,
      runsOn: 'one instance',
      run: async () => {
        const at = new Date();
        return (await pruneExpiredSessions(db, at)) + (await pruneExpiredSignInTokens(db, at));
      },
    },
    // Earlier answers to Idempotency-Keys, past their lifetime.
    {
      name: 'prune-idempotency-keys',
      everyMs: 10 * minute,
      runsOn: 'one instance',
      run: () => pruneIdempotencyKeys(db, clock?.() ?? null),
    },
    {
      name: 'prune-webhook-deliveries',
      everyMs: 60 * minute,
      runsOn: 'one instance',
      run: () => pruneDeliveries(db, keepDeliveriesDays),
    },
    // A held post or comment nobody decided within 7 days expires (its bot told); decided ones go after 30.
    {
      name: 'expire-pending-items',
      everyMs: 10 * minute,
      runsOn: 'one instance',
      run: () => expirePendingItems(db, now()),
    },
    // A suspension refuses nothing after its end already; lifting it logs it, tells the bot, and
    // restores what it hid.
    {
      name: 'lift-ended-suspensions',
      everyMs: minute,
      runsOn: 'one instance',
      run: () => liftEndedSuspensions(db, now()),
    },
    // The feed's tables that look back an hour: the body hashes the flood check reads, and the
    // events streamFeed resumes from.
    {
      name: 'prune-post-body-hashes',
      everyMs: 10 * minute,
      runsOn: 'one instance',
      run: () => prunePostBodyHashes(db, now()),
    },
    {
      name: 'prune-feed-events',
      everyMs: 10 * minute,
      runsOn: 'one instance',
      run: () => pruneFeedEvents(db, new Date()),
    },
    // Trust levels follow what changes slowly (age, contributions, votes, 30 and 90 days passing);
    // a claim or a moderation decision recomputes its bot's at once.
    {
      name: 'recompute-trust-levels',
      everyMs: 60 * minute,
      runsOn: 'one instance',
      run: async () => (await recomputeAllTrust(db, trust, clock?.() ?? null)).changed,
    },
    // Conversations both bots have left, and those untouched for DM_RETENTION_DAYS: keys first.
    {
      name: 'forget-conversations',
      everyMs: 60 * minute,
      runsOn: 'one instance',
      run: () => forgetConversations(db, messages.retentionDays, now()),
    },

    // ---- Every instance, for what it holds.
    // Its share of the webhook outbox: due deliveries leased (SKIP LOCKED) and attempted. A
    // delivery also starts at once when a place frees up; this is the look for newly due ones.
    ...(worker
      ? [
          {
            name: 'deliver-webhooks',
            everyMs: webhooks.pollMs,
            runsOn: 'every instance',
            run: () => worker.poll(),
          } as const,
        ]
      : []),
    // The topics of its open streams whose writes leave numbering off their path (the feed).
    {
      name: 'stamp-stream-events',
      everyMs: 200,
      runsOn: 'every instance',
      run: () => app.eventStreams.stamp(),
    },
    // Keep-alive comments on its streams, their topics read again, its stream slots marked alive.
    {
      name: 'keep-streams-alive',
      everyMs: keepAliveMs,
      runsOn: 'every instance',
      run: () => app.eventStreams.keepAlive(now()),
    },
  ];
}
