// The upkeep of idempotent retries: the earlier answers to Idempotency-Keys are pruned once they
// are older than their lifetime, by one instance per period however many share the database.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { periodicWork } from '../db/periodic-work.js';
import type { Db } from '../db/schema.js';
import { pruneIdempotencyKeys } from './retention.js';
import type { Clock } from '../db/clock.js';

const pruneEveryMs = 10 * 60_000;

export default fp<{ db: Db; clock: Clock | undefined }>(
  async function idempotencyUpkeep(app: FastifyInstance, { db, clock }) {
    const pruning = periodicWork(
      db,
      'prune-idempotency-keys',
      pruneEveryMs,
      () => pruneIdempotencyKeys(db, clock?.() ?? null),
      (error) => app.log.warn({ err: error }, 'pruning idempotency keys failed'),
    );
    app.addHook('onReady', async () => pruning.start());
    app.addHook('onClose', async () => pruning.stop());
  },
  { name: 'idempotency' },
);
