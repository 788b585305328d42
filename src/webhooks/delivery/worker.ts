// The delivery worker, one in every server process: it leases due deliveries from the outbox (so
// several processes share the work and never send one delivery twice at once), makes each attempt
// (./post.ts), and records it: delivered, retried later with backoff and jitter, or failed for
// good once the schedule is spent. Its places are in two lanes, so that receivers that hang never
// hold up the others (a quick place is held for a second at most). Rules and schedule: ../README.md.
import type { WebhookSettings } from '../../config.js';
import type { Db } from '../../platform/db/schema.js';
import { notificationToDeliver } from '../../notifications/service.js';
import { postWebhook } from './post.js';
import {
  leaseDueDeliveries,
  recordDelivered,
  recordFailedAttempt,
  releaseLeases,
  releaseWebhook,
  type LaneRoom,
  type LeasedDelivery,
} from '../repository.js';
import { webhookSignature } from '../signing.js';

/** What became of an attempt, for /metrics. */
export type AttemptResult = 'delivered' | 'retry_scheduled' | 'given_up';

export interface WebhookWorker {
  start(): void;
  /**
   * Looks for due deliveries now, as room allows (the `deliver-webhooks` job of src/jobs.ts, every
   * WEBHOOK_POLL_MS); a look under way looks again when it ends. Resolves when the look is done.
   */
  poll(): Promise<void>;
  /** Stops leasing; attempts in flight are cut short and their deliveries made due again. */
  stop(): Promise<void>;
}

/**
 * The wait before the retry that follows failed attempt number `attempt` (from 1), or null when the
 * schedule is spent. Jitter spreads retries of many deliveries failing at once: each wait is drawn
 * between half the scheduled one and all of it, so a first retry comes within the first step.
 */
export function retryDelayMs(scheduleMs: number[], attempt: number, random = Math.random): number | null {
  const step = scheduleMs[attempt - 1];
  return step === undefined ? null : Math.round(step * (0.5 + random() / 2));
}

/**
 * An attempt holds a place of the quick lane this long at most: one still unanswered then counts in
 * the slow lane, and its webhook is slow from its record on (its next deliveries lease there).
 */
export const slowAttemptMs = 1_000;

interface InFlight {
  abort: AbortController;
  done: Promise<void>;
  /** Its webhook was slow when leased, or the attempt has taken longer than slowAttemptMs. */
  slow: boolean;
}

/**
 * One attempt: the notification as it is now, signed and posted, and what came of it recorded
 * (delivered; retried later or given up). Cut short by the worker's stop, it records nothing: the
 * lease is released and the delivery is due again.
 */
async function attemptDelivery(
  db: Db,
  settings: WebhookSettings,
  delivery: LeasedDelivery,
  signal: AbortSignal,
): Promise<AttemptResult | 'cut_short' | 'withdrawn'> {
  const notification = await notificationToDeliver(db, delivery.notification_id);
  // Deleted since the lease (with its post, comment or actor): the statement that deleted it
  // withdrew this delivery (the webhooks_withdraw trigger), so it is not sent.
  if (!notification) {
    await releaseWebhook(db, delivery);
    return 'withdrawn';
  }
  const body = JSON.stringify({
    type: delivery.event_type,
    timestamp: notification.created_at,
    data: notification,
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(delivery.secret, delivery.id, timestamp, body),
  };
  const started = performance.now();
  const outcome = await postWebhook(delivery.url, headers, body, {
    timeoutMs: settings.timeoutMs,
    allowPrivate: settings.allowPrivate,
    signal,
  });
  const slow = performance.now() - started > slowAttemptMs;
  if (outcome.delivered) {
    await recordDelivered(db, delivery, outcome.status, slow);
    return 'delivered';
  }
  if (signal.aborted) return 'cut_short';
  const retryInMs = retryDelayMs(settings.retryScheduleMs, delivery.attempts);
  await recordFailedAttempt(db, delivery, outcome, retryInMs, settings.disableAfterMs, slow);
  return retryInMs === null ? 'given_up' : 'retry_scheduled';
}

export function webhookWorker(options: {
  db: Db;
  settings: WebhookSettings;
  onAttempt?: (result: AttemptResult) => void;
  onError: (error: unknown) => void;
}): WebhookWorker {
  const { db, settings, onError } = options;
  // Longer than any attempt can take (its deadline), so no other worker takes it meanwhile.
  const leaseMs = settings.timeoutMs * 2 + 5_000;
  const inFlight = new Map<string, InFlight>();
  const cutShort: LeasedDelivery[] = [];
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let lookAgain = false;

  /**
   * Places free in each lane: `concurrency` quick ones, held by attempts younger than a second to
   * webhooks that answer quickly, and as many slow ones, for the rest.
   */
  function room(): LaneRoom {
    let slow = 0;
    for (const attempt of inFlight.values()) if (attempt.slow) slow++;
    return {
      quick: settings.concurrency - (inFlight.size - slow),
      slow: Math.max(0, settings.concurrency - slow),
    };
  }

  /** Leases as many due deliveries as there is room for, and starts them; looks again while it finds some. */
  async function look(): Promise<void> {
    let found: number;
    do {
      lookAgain = false;
      const free = room();
      if (stopped || free.quick + free.slow <= 0) return;
      try {
        const leased = await leaseDueDeliveries(db, free, leaseMs);
        found = leased.length;
        for (const delivery of leased) begin(delivery);
      } catch (error) {
        onError(error);
        found = 0;
      }
    } while (!stopped && (lookAgain || found > 0));
  }

  /** Starts a look, or has the one under way look again; the look. */
  function lookNow(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (looking) {
      lookAgain = true;
      return looking;
    }
    looking = look().finally(() => {
      looking = undefined;
    });
    return looking;
  }

  /** A look soon (a place freed up): at the next turn of the event loop, several of them one look. */
  function lookSoon() {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void lookNow(), 0).unref();
  }

  function begin(delivery: LeasedDelivery) {
    const abort = new AbortController();
    const entry: InFlight = { abort, done: Promise.resolve(), slow: delivery.slow };
    // Still unanswered after a second: its quick place goes to the next delivery due.
    const demotion = delivery.slow
      ? undefined
      : setTimeout(() => {
          entry.slow = true;
          lookSoon();
        }, slowAttemptMs).unref();
    entry.done = attempt(delivery, abort.signal)
      .catch(onError)
      .finally(() => {
        clearTimeout(demotion);
        inFlight.delete(delivery.id);
        // Room for another: look now rather than at the next poll.
        lookSoon();
      });
    inFlight.set(delivery.id, entry);
  }

  async function attempt(delivery: LeasedDelivery, signal: AbortSignal): Promise<void> {
    const result = await attemptDelivery(db, settings, delivery, signal);
    if (result === 'cut_short') cutShort.push(delivery);
    else if (result !== 'withdrawn') options.onAttempt?.(result);
  }

  return {
    start() {
      stopped = false;
      lookSoon();
    },
    poll: lookNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await looking;
      for (const { abort } of inFlight.values()) abort.abort();
      await Promise.all([...inFlight.values()].map(({ done }) => done));
      await releaseLeases(db, cutShort.splice(0)).catch(onError);
    },
  };
}
