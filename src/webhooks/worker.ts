// The delivery worker, one in every server process: it leases due deliveries from the outbox (so
// several processes share the work and never send one delivery twice at once), makes each attempt
// (./delivery.ts), and records it: delivered, retried later with backoff and jitter, or failed for
// good once the schedule is spent. Rules and schedule: ./README.md.
import type { WebhookSettings } from '../config.js';
import type { Db } from '../platform/db/schema.js';
import { notificationToDeliver } from '../notifications/service.js';
import { postWebhook } from './delivery.js';
import {
  leaseDueDeliveries,
  recordDelivered,
  recordFailedAttempt,
  releaseLeases,
  releaseWebhook,
  type LeasedDelivery,
} from './repository.js';
import { webhookSignature } from './signing.js';

/** What became of an attempt, for /metrics. */
export type AttemptResult = 'delivered' | 'retry_scheduled' | 'given_up';

export interface WebhookWorker {
  start(): void;
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

export function webhookWorker(options: {
  db: Db;
  settings: WebhookSettings;
  onAttempt?: (result: AttemptResult) => void;
  onError: (error: unknown) => void;
}): WebhookWorker {
  const { db, settings, onError } = options;
  // Longer than any attempt can take (its deadline), so no other worker takes it meanwhile.
  const leaseMs = settings.timeoutMs * 2 + 5_000;
  const inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  const cutShort: LeasedDelivery[] = [];
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let lookAgain = false;

  /** Leases as many due deliveries as there is room for, and starts them; looks again while it finds some. */
  async function look(): Promise<void> {
    let found: number;
    do {
      lookAgain = false;
      const room = settings.concurrency - inFlight.size;
      if (stopped || room <= 0) return;
      try {
        const leased = await leaseDueDeliveries(db, room, leaseMs);
        found = leased.length;
        for (const delivery of leased) begin(delivery);
      } catch (error) {
        onError(error);
        found = 0;
      }
    } while (!stopped && (lookAgain || (found > 0 && inFlight.size < settings.concurrency)));
  }

  function lookSoon(delayMs: number) {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (looking) {
        lookAgain = true;
        return;
      }
      looking = look().finally(() => {
        looking = undefined;
        lookSoon(settings.pollMs);
      });
    }, delayMs);
    timer.unref();
  }

  function begin(delivery: LeasedDelivery) {
    const abort = new AbortController();
    const done = attempt(delivery, abort.signal)
      .catch(onError)
      .finally(() => {
        inFlight.delete(delivery.id);
        // Room for another: look now rather than at the next poll.
        lookSoon(0);
      });
    inFlight.set(delivery.id, { abort, done });
  }

  async function attempt(delivery: LeasedDelivery, signal: AbortSignal): Promise<void> {
    const notification = await notificationToDeliver(db, delivery.notification_id);
    // Deleted since the lease (with its post, comment or actor): the statement that deleted it
    // withdrew this delivery (the webhooks_withdraw trigger), so it is not sent.
    if (!notification) return releaseWebhook(db, delivery);
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
    const outcome = await postWebhook(delivery.url, headers, body, {
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivate,
      signal,
    });
    if (outcome.delivered) {
      await recordDelivered(db, delivery, outcome.status);
      options.onAttempt?.('delivered');
      return;
    }
    if (signal.aborted) {
      cutShort.push(delivery);
      return;
    }
    const retryInMs = retryDelayMs(settings.retryScheduleMs, delivery.attempts);
    await recordFailedAttempt(db, delivery, outcome, retryInMs, settings.disableAfterMs);
    options.onAttempt?.(retryInMs === null ? 'given_up' : 'retry_scheduled');
  }

  return {
    start() {
      stopped = false;
      lookSoon(0);
    },
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
