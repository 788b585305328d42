// Handlers of the operator's endpoints: getHealth (the process), getReadiness (the database) and
// getMetrics (Prometheus; the registry is the metrics plugin's).
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { ProblemError } from '../problems.js';

export function healthHandlers({ db }: { db: Db }) {
  return {
    async getHealth() {
      return { status: 200, body: { status: 'ok' } };
    },

    async getReadiness({ request }) {
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw new ProblemError(503, 'unavailable', 'The database is unavailable.', {
          headers: { 'retry-after': 5 },
        });
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
