// Prometheus metrics (prom-client), one registry per app: request durations by operationId, the
// process's own metrics (memory, CPU, event loop lag), the database pool, and rate-limit refusals
// by limit. `getMetrics` (GET /metrics) serves them; labels are bounded (operationIds, methods,
// statuses, limit names), never a path or an id.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReadRouting } from '../db/read-routing.js';
import { ProblemError } from '../spec/problems.js';

/** The database pool's state, when it has one (a Postgres server; PGlite has a single connection). */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface MetricsOptions {
  poolStats?: () => PoolStats;
  reads?: ReadRouting;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics registry, read by getMetrics. */
    metrics: Registry;
    /** Request durations by operation: for answers given before the router (platform/response-cache/plugin.ts). */
    requestDuration: Histogram<'operationId' | 'method' | 'status'>;
  }
}

export default fp<MetricsOptions>(
  async function metrics(app: FastifyInstance, { poolStats, reads }) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to sending its answer, by operation.',
      labelNames: ['operationId', 'method', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const refusals = new Counter({
      name: 'rate_limit_refusals_total',
      help: 'Requests refused with 429, by the limit that refused them.',
      labelNames: ['limit'] as const,
      registers: [registry],
    });
    if (poolStats) {
      const pool = (name: string, help: string, read: (stats: PoolStats) => number) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            this.set(read(poolStats()));
          },
        });
      pool('pg_pool_connections', 'Connections the database pool holds.', (stats) => stats.total);
      pool('pg_pool_idle_connections', 'Pool connections not in use.', (stats) => stats.idle);
      pool('pg_pool_waiting_requests', 'Queries waiting for a pool connection.', (stats) => stats.waiting);
    }
    if (reads?.replicated) {
      const routed = new Counter({
        name: 'db_public_reads_total',
        help: 'Public reads by where they went (replica or primary) and why (fresh, own_writes, lagging, replica_down).',
        labelNames: ['target', 'reason'] as const,
        registers: [registry],
      });
      const fallbacks = new Counter({
        name: 'db_replica_fallbacks_total',
        help: 'Reads the replica failed for want of a database (or cancelled for a recovery conflict), retried on the primary.',
        registers: [registry],
      });
      reads.onRead = (target, reason) => routed.inc({ target, reason });
      reads.onFallback = () => fallbacks.inc();
      new Gauge({
        name: 'db_replica_up',
        help: 'Whether the replica answered its last check (1) or not (0).',
        registers: [registry],
        collect() {
          this.set(reads.state().up ? 1 : 0);
        },
      });
      new Gauge({
        name: 'db_replica_lag_seconds',
        help: 'How stale the replica may be: time since the primary WAL position it has replayed (+Inf while it is down).',
        registers: [registry],
        collect() {
          this.set(reads.state().lagMs / 1000);
        },
      });
    }

    app.decorate('metrics', registry);
    app.decorate('requestDuration', duration);
    app.addHook('onError', async (_request, _reply, error) => {
      if (error instanceof ProblemError && error.status === 429)
        refusals.inc({ limit: error.limitName ?? 'unknown' });
    });
    app.addHook('onResponse', async (request, reply) => {
      duration.observe(
        { operationId: operationLabel(request), method: request.method, status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    });
  },
  { name: 'metrics' },
);

/** The operation a request is counted under: its operationId; `docs` for routes without one (pages, docs); `unmatched`. */
export function operationLabel(request: FastifyRequest): string {
  return request.routeOptions.config.operationId ?? (request.routeOptions.url ? 'docs' : 'unmatched');
}

/** The metricsToken hook: with a METRICS_TOKEN, only a request bearing it may scrape; without one, anyone. */
export function metricsAuth(token: string | undefined): onRequestAsyncHookHandler {
  const expected = token === undefined ? undefined : createHash('sha256').update(token).digest();
  return async function authenticateScraper(request) {
    if (!expected) return;
    const sent = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(createHash('sha256').update(sent).digest(), expected)) {
      throw new ProblemError(
        401,
        'unauthorized',
        'Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>".',
        {
          headers: { 'www-authenticate': 'Bearer realm="bot-platform-metrics"' },
        },
      );
    }
  };
}
