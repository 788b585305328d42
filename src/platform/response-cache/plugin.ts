// The response cache's wiring (src/platform/response-cache/README.md): every write this instance answers empties it
// before its answer leaves; a kept page answers a request as it arrives, before Fastify builds a
// request and a reply for it, or else from the route's first hook; and its metrics. A route opts in
// with `app.responseCache.route(page, keyOf)`: keyOf names the request's page, or nothing when the
// request must not be served from memory (a cursor, a signed-in person).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
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
import type { ResponseCacheLimits } from '../../config.js';
import { entityTag, notModified } from '../http/conditional-get.js';
import { ResponseCache, type CachedPage, type Fill, type PageRoute } from './response-cache.js';
import { compressedForms, compressionThreshold, encodingFor } from '../http/compression.js';
import { operationLabel } from '../http/metrics.js';

/** What a cached route adds to its hooks; onSend runs before the route's conditional GET. */
export interface CachedRouteHooks {
  onRequest: onRequestAsyncHookHandler;
  onSend: onSendAsyncHookHandler;
  onResponse: onResponseAsyncHookHandler;
  onRequestAbort: onRequestAbortAsyncHookHandler;
}

declare module 'fastify' {
  interface FastifyInstance {
    responseCache: {
      /**
       * The hooks of a route whose pages may be kept. `answersBeforeRouter`: whether a request
       * with these headers may get a kept page before the router (default: any).
       */
      route(
        page: string,
        keyOf: (request: FastifyRequest) => string | undefined,
        answersBeforeRouter?: (headers: IncomingHttpHeaders) => boolean,
      ): CachedRouteHooks;
      /** Forgets every page: for a change this instance did not answer (a test's reset of the database). */
      invalidate(): void;
    };
  }
  interface FastifyContextConfig {
    /**
     * The route relays requests to other routes of this app (callMcp's tool calls): a POST to it
     * writes nothing itself, so it empties no page; each write it relays empties them as it answers.
     */
    relay?: boolean;
  }
  interface FastifyRequest {
    /** Set while this request's answer is to fill the response cache: its reads are shared ones. */
    pageCacheFill: { fill: Fill; route: PageRoute } | null;
  }
}

export interface ResponseCacheOptions {
  limits: ResponseCacheLimits;
  /** The request id an answer carries, as the app makes it (the caller's, when plain enough). */
  requestIdOf: (headers: IncomingHttpHeaders) => string;
}

/** Log levels at which Fastify logs every request: a page answered before the router is logged too. */
const logsEachRequest = new Set(['info', 'debug', 'trace']);
/** Methods that may write: any answer to one (but a refusal, which wrote nothing) empties the cache. */
const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Headers of one answer, never of the page: set per request, or by the transport. */
const perAnswer = new Set([
  'x-request-id',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'set-cookie',
]);

/** The cache's counters and gauges on /metrics. */
function cacheMetrics(app: FastifyInstance, cache: ResponseCache) {
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
  return {
    requests: new Counter({
      name: 'page_cache_requests_total',
      help: 'Requests for cacheable pages by page and result: hit, shared (waited for a read under way), miss.',
      labelNames: ['page', 'result'] as const,
      registers: [app.metrics],
    }),
    invalidations: new Counter({
      name: 'page_cache_invalidations_total',
      help: 'Times a write on this instance emptied the response cache.',
      registers: [app.metrics],
    }),
  };
}
type CacheMetrics = ReturnType<typeof cacheMetrics>;

/**
 * Before the router: the server's one 'request' listener is Fastify's handler; a kept page answers
 * first, and everything else (misses, other methods and URLs, a closing server) goes on to Fastify
 * as before. A hit then costs about what a hello-world costs.
 */
function answerBeforeRouter(
  app: FastifyInstance,
  cache: ResponseCache,
  { requests }: CacheMetrics,
  requestIdOf: (headers: IncomingHttpHeaders) => string,
) {
  let closing = false;
  app.addHook('preClose', async () => void (closing = true));
  const [routed, ...others] = app.server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  if (routed === undefined || others.length > 0) return;
  app.server.removeListener('request', routed);
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (closing || !answerAsArrived(req, res)) routed.call(app.server, req, res);
  });

  function answerAsArrived(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const page = cache.peek(req.url);
    if (page === undefined || !page.route.answersBeforeRouter(req.headers)) return false;
    const started = performance.now();
    const id = requestIdOf(req.headers);
    const status = notModified(req.headers['if-none-match'], page.etag) ? 304 : 200;
    if (status === 304) {
      const { 'content-type': _type, ...headers } = page.headers;
      res.writeHead(304, { ...headers, 'x-request-id': id }).end();
    } else {
      const encoding = encodingFor(req.headers['accept-encoding']);
      const compressed = encoding && page.compressed[encoding];
      const body = compressed || page.body;
      res
        .writeHead(200, {
          ...page.headers,
          ...(compressed ? { 'content-encoding': encoding } : {}),
          'x-request-id': id,
          'content-length': body.length,
        })
        .end(body);
    }
    requests.inc({ page: page.route.page, result: 'hit' });
    const seconds = (performance.now() - started) / 1000;
    app.requestDuration.observe(
      { operationId: page.route.operationId, method: 'GET', status: String(status) },
      seconds,
    );
    if (logsEachRequest.has(app.log.level)) {
      app.log.info(
        {
          request_id: id,
          req: { method: 'GET', url: req.url },
          res: { statusCode: status },
          responseTime: seconds * 1000,
        },
        'request answered from memory',
      );
    }
    return true;
  }
}

/** A kept page, answered through Fastify (a 304 when the client holds it). */
function serve(request: FastifyRequest, reply: FastifyReply, page: CachedPage) {
  reply.headers(page.headers);
  if (notModified(request.headers['if-none-match'], page.etag))
    return reply.code(304).removeHeader('content-type').send();
  // Sent as kept: an answer already encoded is not compressed again (http/compression.ts).
  const encoding = encodingFor(request.headers['accept-encoding']);
  const compressed = encoding && page.compressed[encoding];
  if (compressed) return reply.header('content-encoding', encoding).send(compressed);
  return reply.send(page.body);
}

/** The hooks of one cached route: a hit served, a miss read once (others wait for it) and kept. */
function cachedRoute(
  cache: ResponseCache,
  { requests }: CacheMetrics,
  page: string,
  keyOf: (request: FastifyRequest) => string | undefined,
  answersBeforeRouter: (headers: IncomingHttpHeaders) => boolean,
): CachedRouteHooks {
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
      if ('fill' in found) {
        const route = { page, operationId: operationLabel(request), answersBeforeRouter };
        request.pageCacheFill = { fill: found.fill, route };
      }
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
      const body = Buffer.from(payload);
      // Every answer of the page says that it depends on Accept-Encoding, compressed or not.
      if (body.length >= compressionThreshold) reply.header('vary', varyingOnEncoding(reply));
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (!perAnswer.has(name) && value !== undefined) headers[name] = String(value);
      filling.fill.complete({
        body,
        compressed: compressedForms(body),
        headers,
        etag,
        route: filling.route,
      });
      return payload;
    },
    onResponse: abandon,
    onRequestAbort: abandon,
  };
}

export default fp<ResponseCacheOptions>(
  async function responseCache(app: FastifyInstance, { limits, requestIdOf }) {
    const cache = new ResponseCache(limits);
    const metrics = cacheMetrics(app, cache);
    app.decorateRequest('pageCacheFill', null);
    const invalidate = () => {
      cache.invalidate();
      metrics.invalidations.inc();
    };
    // Before the answer leaves: the writer's very next read, on this instance, is read afresh.
    app.addHook('onSend', async (request, reply, payload) => {
      if (
        writeMethods.has(request.method) &&
        (reply.statusCode < 400 || reply.statusCode >= 500) &&
        !request.routeOptions.config.relay
      )
        invalidate();
      return payload;
    });
    if (limits.ttlMs > 0) answerBeforeRouter(app, cache, metrics, requestIdOf);
    app.decorate('responseCache', {
      invalidate,
      route: (page, keyOf, answersBeforeRouter = () => true) =>
        cachedRoute(cache, metrics, page, keyOf, answersBeforeRouter),
    });
  },
  { name: 'response-cache', dependencies: ['metrics'] },
);

/** The reply's Vary with accept-encoding in it (as @fastify/compress writes it, so it adds none). */
function varyingOnEncoding(reply: FastifyReply): string {
  const vary = reply.getHeader('vary');
  const named = vary === undefined ? [] : [vary].flat().map(String);
  return named.some((value) => value.includes('accept-encoding'))
    ? named.join(', ')
    : [...named, 'accept-encoding'].join(', ');
}
