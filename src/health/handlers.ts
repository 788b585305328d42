// Handlers of the operator's endpoints: getHealth (the process), getReadiness (the database) and
// getMetrics (Prometheus; the registry is the metrics plugin's).
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { unavailable } from '../platform/spec/problems.js';
import { pingDatabase } from './repository.js';

export function healthHandlers({ db }: { db: Db }) {
  return {
    async getHealth() {
      return { status: 200, body: { status: 'ok' } };
    },

    async getReadiness({ request }) {
      try {
        await pingDatabase(db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw unavailable('The database is unavailable.');
      }
      return { status: 200, body: { status: 'ready' } };
    },

    async getMetrics({ request }) {
      const registry = request.server.metrics;
      return {
        status: 200,
        body: await registry.metrics(),
        headers: { 'content-type': registry.contentType },
      };
    },
  } satisfies Pick<HandlerMap, 'getHealth' | 'getReadiness' | 'getMetrics'>;
}
