// Webhook delivery in this server process (src/webhooks/worker.ts): started once the app is ready,
// stopped when it closes (attempts in flight cut short and made due again, so a restart loses
// nothing); its metrics; and the pruning of old deliveries, by one instance per period.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import type { WebhookSettings } from '../config.js';
import { periodicWork } from '../db/periodic-work.js';
import type { Db } from '../db/schema.js';
import { outboxState, pruneDeliveries } from '../webhooks/repository.js';
import { webhookWorker } from '../webhooks/worker.js';

/** Deliveries done (delivered or failed) are kept this long for listWebhookDeliveries. */
const keepDeliveriesDays = 30;
const pruneEveryMs = 60 * 60_000;

export default fp<{ db: Db; settings: WebhookSettings }>(
  async function webhookDelivery(app: FastifyInstance, { db, settings }) {
    const attempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by result: delivered, retry_scheduled, given_up.',
      labelNames: ['result'] as const,
      registers: [app.metrics],
    });
    new Gauge({
      name: 'webhook_outbox_pending',
      help: 'Webhook deliveries not yet delivered or given up.',
      registers: [app.metrics],
      async collect() {
        this.set((await outboxState(db)).pending);
      },
    });
    new Gauge({
      name: 'webhook_outbox_oldest_due_seconds',
      help: 'How long the oldest delivery that is due has been waiting for an attempt (0: none is).',
      registers: [app.metrics],
      async collect() {
        this.set((await outboxState(db)).oldestDueSeconds);
      },
    });

    const pruning = periodicWork(
      db,
      'prune-webhook-deliveries',
      pruneEveryMs,
      () => pruneDeliveries(db, keepDeliveriesDays),
      (error) => app.log.warn({ err: error }, 'pruning webhook deliveries failed'),
    );
    app.addHook('onReady', async () => pruning.start());
    app.addHook('onClose', async () => pruning.stop());

    if (!settings.deliver) return;
    const worker = webhookWorker({
      db,
      settings,
      onAttempt: (result) => attempts.inc({ result }),
      onError: (error) => app.log.warn({ err: error }, 'webhook delivery worker'),
    });
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => worker.stop());
  },
  { name: 'webhook-delivery', dependencies: ['metrics'] },
);
