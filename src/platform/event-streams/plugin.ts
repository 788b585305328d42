// Event streams (./README.md): one hub per app (./hub.ts), the areas' `app.eventStreams`, the
// `event_streams_open` gauge, and every stream closed when the app closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { DatabaseSignals } from '../db/signals.js';
import type { Db } from '../db/schema.js';
import { StreamHub } from './hub.js';
import type { StreamName } from './streams.js';

export interface EventStreamsOptions {
  db: Db;
  /** The database's NOTIFYs; without them (some tests' apps), streams answer 503. */
  signals?: DatabaseSignals | undefined;
}

export default fp<EventStreamsOptions>(
  async function eventStreams(app: FastifyInstance, { db, signals }) {
    const hub = new StreamHub(db, signals, app.log);
    new Gauge({
      name: 'event_streams_open',
      help: 'Event streams this instance holds open, by stream.',
      labelNames: ['stream'] as const,
      registers: [app.metrics],
      collect() {
        this.reset();
        const open: Record<StreamName, number> = { notifications: 0, feed: 0 };
        for (const subscriber of hub.subscribers) open[subscriber.stream]++;
        for (const [stream, count] of Object.entries(open)) this.set({ stream }, count);
      },
    });
    app.decorate('eventStreams', {
      open: (reply, options) => hub.open(reply, options),
      closeAll: () => hub.closeAll(),
      stamp: () => hub.stamp(),
      keepAlive: (now) => hub.keepAlive(now),
    });
    app.addHook('preClose', () => hub.close());
    app.addHook('onClose', () => hub.unlisten());
  },
  { name: 'event-streams', dependencies: ['metrics'] },
);
