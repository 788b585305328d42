// The page cache's wiring (src/page-cache/README.md): every write this instance answers empties it
// before its answer leaves, routes that opt in serve hits from their first hook, and its metrics.
// A route opts in with `app.pageCache.route(page, keyOf)`: keyOf names the request's page, or
// nothing when the request must not be served from memory (a cursor, a signed-in person).
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAbortAsyncHookHandler,
  onRequestAsyncHookHandler,
  onResponseAsyncHookHandler,
  onSendAsyncHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import { entityTag, notModified } from '../conditional-response.js';
import type { PageCacheLimits } from '../config.js';
import { PageCache, type CachedPage, type Fill } from '../page-cache/page-cache.js';

/** What a cached route adds to its hooks; onSend runs before the route's conditional GET. */
export interface CachedRouteHooks {
  onRequest: onRequestAsyncHookHandler;
  onSend: onSendAsyncHookHandler;
  onResponse: onResponseAsyncHookHandler;
  onRequestAbort: onRequestAbortAsyncHookHandler;
}

declare module 'fastify' {
  interface FastifyInstance {
    pageCache: {
      route(page: string, keyOf: (request: FastifyRequest) => string | undefined): CachedRouteHooks;
      /** Forgets every page: for a change this instance did not answer (a test's reset of the database). */
      invalidate(): void;
    };
  }
  interface FastifyRequest {
    /** Set while this request's answer is to fill the page cache: its reads are shared ones. */
    pageCacheFill: { fill: Fill; headersBefore: Set<string> } | null;
  }
}

/** Methods that may write: any answer to one (but a refusal, which wrote nothing) empties the cache. */
const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Headers of one answer, never of the page: set per request, or by the transport. */
const perAnswer = new Set([
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'set-cookie',
]);

export default fp<{ limits: PageCacheLimits }>(
  async function pageCache(app: FastifyInstance, { limits }) {
    const cache = new PageCache(limits);
    const requests = new Counter({
      name: 'page_cache_requests_total',
      help: 'Requests for cacheable pages by page and result: hit, shared (waited for a read under way), miss.',
      labelNames: ['page', 'result'] as const,
      registers: [app.metrics],
    });
    const invalidations = new Counter({
      name: 'page_cache_invalidations_total',
      help: 'Times a write on this instance emptied the page cache.',
      registers: [app.metrics],
    });
    new Gauge({
      name: 'page_cache_entries',
      help: 'Pages held in memory.',
      registers: [app.metrics],
      collect() {
        this.set(cache.entries);
      },
    });
    new Gauge({
      name: 'page_cache_bytes',
      help: 'Bytes of the pages held in memory (bodies, tags and keys).',
      registers: [app.metrics],
      collect() {
        this.set(cache.bytes);
      },
    });

    app.decorateRequest('pageCacheFill', null);
    // Before the answer leaves: the writer's very next read, on this instance, is read afresh.
    const invalidate = () => {
      cache.invalidate();
      invalidations.inc();
    };
    app.addHook('onSend', async (request, reply, payload) => {
      if (writeMethods.has(request.method) && (reply.statusCode < 400 || reply.statusCode >= 500))
        invalidate();
      return payload;
    });

    function serve(request: FastifyRequest, reply: FastifyReply, page: CachedPage) {
      reply.headers(page.headers);
      if (notModified(request, page.etag)) return reply.code(304).removeHeader('content-type').send();
      return reply.send(page.body);
    }

    app.decorate('pageCache', {
      invalidate,
      route(page: string, keyOf: (request: FastifyRequest) => string | undefined): CachedRouteHooks {
        const abandon = async (request: FastifyRequest) => request.pageCacheFill?.fill.abandon();
        return {
          async onRequest(request, reply) {
            const key = keyOf(request);
            if (key === undefined) return;
            const found = cache.lookup(key);
            if ('hit' in found) {
              requests.inc({ page, result: 'hit' });
              return serve(request, reply, found.hit);
            }
            if ('wait' in found) {
              const shared = await found.wait;
              requests.inc({ page, result: shared ? 'shared' : 'miss' });
              if (shared) return serve(request, reply, shared);
              return;
            }
            requests.inc({ page, result: 'miss' });
            if ('fill' in found)
              request.pageCacheFill = {
                fill: found.fill,
                headersBefore: new Set(Object.keys(reply.getHeaders())),
              };
          },
          async onSend(request, reply, payload) {
            const filling = request.pageCacheFill;
            if (filling === null) return payload;
            if (reply.statusCode !== 200 || typeof payload !== 'string' || reply.hasHeader('set-cookie')) {
              filling.fill.abandon();
              return payload;
            }
            const etag = entityTag(payload);
            reply.header('etag', etag);
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(reply.getHeaders()))
              if (!filling.headersBefore.has(name) && !perAnswer.has(name) && value !== undefined)
                headers[name] = String(value);
            filling.fill.complete({ body: Buffer.from(payload), headers, etag });
            return payload;
          },
          onResponse: abandon,
          onRequestAbort: abandon,
        };
      },
    });
  },
  { name: 'page-cache', dependencies: ['metrics'] },
);
