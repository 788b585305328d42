// Every response names its request (x-request-id), and a closing server drains well: requests that
// still arrive are told to go elsewhere (503 in our shape), and keep-alive connections that go idle
// while in-flight requests finish are closed at once, not after keepAliveTimeout, so that one idle
// client cannot hold shutdown open.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemError } from '../spec/problems.js';

export default fp(
  async function lifecycle(app: FastifyInstance, { maxConnections }: { maxConnections: number }) {
    app.server.maxConnections = maxConnections;
    let closing = false;
    let closeIdle: NodeJS.Timeout | undefined;
    app.addHook('preClose', async () => {
      closing = true;
      closeIdle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    });
    app.addHook('onClose', async () => clearInterval(closeIdle));
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id);
      if (closing)
        throw new ProblemError(503, 'unavailable', 'The server is shutting down. Retry shortly.', {
          headers: { 'retry-after': 1, connection: 'close' },
        });
    });
  },
  { name: 'lifecycle' },
);
