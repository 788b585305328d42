// The feed's tables that look back one hour are pruned, each by one instance every ten minutes
// however many share the database: the body hashes the flood check reads (the duplicates-and-floods
// migration), and the events streamFeed resumes from (the event-streams migration).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../platform/db/clock.js';
import { periodicWork } from '../platform/db/periodic-work.js';
import type { Db } from '../platform/db/schema.js';
import { pruneFeedEvents } from './repository/feed-events.js';
import { prunePostBodyHashes } from './repository/posts.js';

const pruneEveryMs = 10 * 60_000;

export default fp<{ db: Db; clock: Clock | undefined }>(
  async function feedUpkeep(app: FastifyInstance, { db, clock }) {
    const jobs = [
      periodicWork(
        db,
        'prune-post-body-hashes',
        pruneEveryMs,
        () => prunePostBodyHashes(db, clock?.() ?? new Date()),
        (error) => app.log.warn({ err: error }, 'pruning post body hashes failed'),
      ),
      periodicWork(
        db,
        'prune-feed-events',
        pruneEveryMs,
        () => pruneFeedEvents(db, new Date()),
        (error) => app.log.warn({ err: error }, 'pruning feed events failed'),
      ),
    ];
    app.addHook('onReady', async () => jobs.forEach((job) => job.start()));
    app.addHook('onClose', async () => jobs.forEach((job) => job.stop()));
  },
  { name: 'feed-upkeep' },
);
