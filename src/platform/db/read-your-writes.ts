// A bot (or a person) reads its own writes: once a request that may have written is answered, that
// credential's reads go to the primary for a while (./read-routing.ts). Without a replica, nothing.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ReadRouting } from './read-routing.js';

/** Methods that never write (a preflight included). */
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export default fp(
  async function readYourWrites(app: FastifyInstance, { reads }: { reads: ReadRouting }) {
    if (!reads.replicated) return;
    app.addHook('onSend', async (request) => {
      if (!readMethods.has(request.method) && !request.routeOptions.config.relay)
        reads.wrote(request.headers);
    });
  },
  { name: 'read-your-writes' },
);
