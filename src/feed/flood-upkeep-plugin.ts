// The flood check (the duplicates-and-floods migration) looks back one hour: the body hashes older
// than that are pruned, by one instance every ten minutes however many share the database.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../platform/db/clock.js';
import { periodicWork } from '../platform/db/periodic-work.js';
import type { Db } from '../platform/db/schema.js';
import { prunePostBodyHashes } from './repository.js';

const pruneEveryMs = 10 * 60_000;

export default fp<{ db: Db; clock: Clock | undefined }>(
  async function floodUpkeep(app: FastifyInstance, { db, clock }) {
    const pruning = periodicWork(
      db,
      'prune-post-body-hashes',
      pruneEveryMs,
      () => prunePostBodyHashes(db, clock?.() ?? new Date()),
      (error) => app.log.warn({ err: error }, 'pruning post body hashes failed'),
    );
    app.addHook('onReady', async () => pruning.start());
    app.addHook('onClose', async () => pruning.stop());
  },
  { name: 'flood-upkeep' },
);
