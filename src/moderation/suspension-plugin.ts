// Suspensions with an end are lifted by the platform once it comes: one instance a minute, however
// many share the database. A suspension refuses nothing after its end already (it is in force only
// while its end is ahead); the lifting logs it, tells the bot, and restores what it hid.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../platform/db/clock.js';
import { periodicWork } from '../platform/db/periodic-work.js';
import type { Db } from '../platform/db/schema.js';
import { liftEndedSuspensions } from './service/actions.js';

const liftEveryMs = 60_000;

export default fp<{ db: Db; clock: Clock | undefined }>(
  async function suspensionUpkeep(app: FastifyInstance, { db, clock }) {
    const lifting = periodicWork(
      db,
      'lift-ended-suspensions',
      liftEveryMs,
      () => liftEndedSuspensions(db, clock?.() ?? new Date()),
      (error) => app.log.warn({ err: error }, 'lifting ended suspensions failed'),
    );
    app.addHook('onReady', async () => lifting.start());
    app.addHook('onClose', async () => lifting.stop());
  },
  { name: 'suspension-upkeep' },
);
