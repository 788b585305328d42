// Webhook delivery in this server process (./worker.ts): started once the app is ready,
// polled by the `deliver-webhooks` job (src/jobs.ts), stopped when it begins to close (attempts in
// flight cut short and made due again, so a restart loses nothing); and its metrics.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import type { WebhookSettings } from '../../config.js';
import type { Db } from '../../platform/db/schema.js';
import { outboxState } from '../repository.js';
import { webhookWorker, type WebhookWorker } from './worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's delivery worker; null with WEBHOOK_DELIVERY=off. */
    webhookWorker: WebhookWorker | null;
  }
}

/** How long a scrape waits for a fresh outbox reading before it shows the last one. */
const readingWaitMs = 1_000;

/**
 * The outbox's depth and age, read at most once at a time and waited for at most `readingWaitMs`:
 * /metrics must answer while the database does not (that is when it is read most), so a scrape
 * shows the last reading, and how old it is, rather than waiting on the query's deadline.
 */
function outboxReading(db: Db) {
  let last = { pending: 0, oldestDueSeconds: 0, at: Date.now() };
  let reading: Promise<void> | undefined;
  return {
    async read() {
      reading ??= outboxState(db)
        .then((state) => void (last = { ...state, at: Date.now() }))
        .catch(() => {})
        .finally(() => (reading = undefined));
      await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, readingWaitMs).unref())]);
      return { ...last, ageSeconds: (Date.now() - last.at) / 1000 };
    },
  };
}

export default fp<{ db: Db; settings: WebhookSettings }>(
  async function webhookDelivery(app: FastifyInstance, { db, settings }) {
    const attempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by result: delivered, retry_scheduled, given_up.',
      labelNames: ['result'] as const,
      registers: [app.metrics],
    });
    const outbox = outboxReading(db);
    new Gauge({
      name: 'webhook_outbox_pending',
      help: 'Webhook deliveries not yet delivered or given up (as last read: see webhook_outbox_read_age_seconds).',
      registers: [app.metrics],
      async collect() {
        this.set((await outbox.read()).pending);
      },
    });
    new Gauge({
      name: 'webhook_outbox_oldest_due_seconds',
      help: 'How long the oldest delivery that is due has been waiting for an attempt (0: none is).',
      registers: [app.metrics],
      async collect() {
        this.set((await outbox.read()).oldestDueSeconds);
      },
    });
    new Gauge({
      name: 'webhook_outbox_read_age_seconds',
      help: 'Age of the outbox reading the two gauges above show (large while the database does not answer).',
      registers: [app.metrics],
      async collect() {
        this.set((await outbox.read()).ageSeconds);
      },
    });

    if (!settings.deliver) {
      app.decorate('webhookWorker', null);
      return;
    }
    const worker = webhookWorker({
      db,
      settings,
      onAttempt: (result) => attempts.inc({ result }),
      onError: (error) => app.log.warn({ err: error }, 'webhook delivery worker'),
    });
    app.decorate('webhookWorker', worker);
    app.addHook('onReady', async () => worker.start());
    // It stops leasing as soon as shutdown begins: a lease begun later, on a database that does not
    // answer, would hold shutdown for a connection's whole deadline. What it holds ends by onClose.
    let stopping: Promise<void> | undefined;
    app.addHook('preClose', async () => void (stopping = worker.stop()));
    app.addHook('onClose', async () => stopping ?? worker.stop());
  },
  { name: 'webhook-delivery', dependencies: ['metrics'] },
);
