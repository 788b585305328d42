// Builds the Fastify application as a plugin tree; it never listens (src/server.ts does). A request
// goes: request id -> security headers -> session (when a cookie came) -> route from openapi.yaml -> authentication (the
// operation's security scheme) -> rate limit (`x-rate-limit`) -> body parsing and validation (the
// spec's schemas) -> handler -> repository -> database; any failure leaves through the one
// problem+json error path. A first page of the feed kept in memory answers before all of that
// (src/platform/response-cache/README.md).
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import Fastify, {
  LogController,
  type FastifyRequest,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import type { Config } from './config.js';
import { primaryOnly, type ReadRouting } from './platform/db/read-routing.js';
import type { Db } from './platform/db/schema.js';
import { answerSheetKeyword } from './assessments/answer-sheet-keyword.js';
import { areaPages, createHandlers } from './areas.js';
import { getMe } from './auth/service.js';
import {
  headerPattern,
  listOperations,
  loadSpec,
  type Operation,
  type RateLimitExtension,
} from './platform/spec/openapi.js';
import { bearerAuth } from './platform/admission/bearer-auth.js';
import compression from './platform/http/compression.js';
import cors from './platform/http/cors.js';
import docs from './platform/http/docs.js';
import errors, { sendProblem } from './platform/http/errors.js';
import { settleAdmissionFirst } from './platform/admission/settle-on-error.js';
import jsonBody from './platform/http/json-body.js';
import openapiRoutes, { routeCompilers } from './platform/operations/routes.js';
import responseCache from './platform/response-cache/plugin.js';
import { firstPageKey } from './platform/response-cache/requests.js';
import webhookDelivery from './webhooks/delivery-plugin.js';
import backgroundJobsPlugin from './platform/jobs/plugin.js';
import { backgroundJobs } from './jobs.js';
import eventStreams from './platform/event-streams/plugin.js';
import type { DatabaseSignals } from './platform/db/signals.js';
import { secretScanner } from './platform/secret-scanning/scanner.js';
import { secretGuard as createSecretGuard } from './platform/secret-scanning/guard.js';
import { revokeKeyFoundInText } from './bots/service.js';
import rateLimiting, { botAdmission } from './platform/admission/rate-limit-plugin.js';
import metrics, { metricsAuth, type PoolStats } from './platform/http/metrics.js';
import securityHeaders from './platform/http/security-headers.js';
import type { Clock } from './platform/db/clock.js';
import { ProblemError } from './platform/spec/problems.js';
import { jsonRpcErrors } from './mcp/json-rpc-errors.js';
import { createMailer } from './auth/mailer.js';
import { oauthProviders } from './auth/oauth.js';
import sessions, { sessionAuth } from './platform/sessions/plugin.js';
import webPages from './platform/web/plugin.js';
import { renderErrorPage } from './platform/web/document.js';
import { viewerOf } from './platform/web/layout.js';

export interface AppOptions {
  config: Config;
  /** The primary database. */
  db: Db;
  /** Where public reads go (default: the primary). */
  reads?: ReadRouting;
  /** Where logs go (default: stdout). Tests pass a stream to read them. */
  logStream?: NodeJS.WritableStream;
  /** Called for every route as it is added, before any plugin is registered (route inventories). */
  onRoute?: (route: RouteOptions) => void;
  /** The time rate limits are counted at, for tests that move it instead of sleeping; by default the database's clock. */
  clock?: Clock;
  /** Rate limiting is always on; only the limiter's benchmark turns it off, to measure its cost. */
  rateLimiting?: boolean;
  /** Secret scanning is always on; only its benchmark turns it off, to measure its cost. */
  secretScanning?: boolean;
  /** The database pool's state for /metrics (a Postgres server's pool; PGlite has none). */
  poolStats?: () => PoolStats;
  /** What the database NOTIFYs (OpenDatabase's signals); without them the event streams answer 503. */
  signals?: DatabaseSignals;
}

const bodyLimit = 64 * 1024;
/** Methods that never write (a preflight included). */
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

const secretParameters = /([?&](?:token|code|state)=)[^&#]*/g;

function redactSecrets(url: string): string {
  return url.replace(secretParameters, '$1[redacted]');
}

export async function buildApp({
  config,
  db,
  reads = primaryOnly(db),
  logStream,
  onRoute,
  clock,
  rateLimiting: limited = true,
  secretScanning: scanning = true,
  poolStats,
  signals,
}: AppOptions) {
  const spec = loadSpec();
  // A caller's x-request-id is kept only when it matches the pattern openapi.yaml documents for it
  // (short and plain: harmless in headers and logs); otherwise we make one.
  const incomingRequestId = headerPattern(spec, 'X-Request-Id');
  const requestIdOf = (headers: IncomingHttpHeaders) => {
    const incoming = headers['x-request-id'];
    return typeof incoming === 'string' && incomingRequestId.test(incoming) ? incoming : randomUUID();
  };
  const secure = config.publicUrl.startsWith('https:');
  const logger: FastifyServerOptions['logger'] = {
    level: config.logLevel,
    // Credentials never reach a log line, whichever object carries the headers.
    redact: {
      paths: [
        'headers.authorization',
        'headers.cookie',
        'headers["set-cookie"]',
        '*.headers.authorization',
        '*.headers.cookie',
        '*.headers["set-cookie"]',
      ],
      censor: '[redacted]',
    },
    serializers: {
      // One-time secrets travel in some query strings (sign-in tokens, OAuth codes): never logged.
      // Log calls may pass any object as `req`; only a real request is reshaped.
      req: (request) =>
        typeof request?.url === 'string' && 'raw' in request
          ? {
              method: request.method,
              url: redactSecrets(request.url),
              host: request.host,
              remoteAddress: request.ip,
            }
          : (request as unknown as Record<string, unknown>),
    },
    ...(logStream ? { stream: logStream } : {}),
  };

  const app = Fastify({
    logger,
    bodyLimit,
    // Slow clients cannot hold the server: a request must arrive whole within requestTimeout (a
    // body trickled a byte at a time is cut off with a 408), its headers within headersTimeout;
    // Node checks both every second rather than every 30 s.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    trustProxy: config.trustProxy,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // Fastify's own 503 while closing is not a problem document; our onRequest hook answers instead.
    return503OnClosing: false,
    // Errors before routing (a URL with broken percent-encoding) take the same problem path.
    frameworkErrors: (_error, request, reply) => {
      reply.header('x-request-id', request.id);
      void sendProblem(
        reply,
        request,
        new ProblemError(400, 'malformed_request', 'The request URL is not valid.'),
      );
    },
    genReqId: (request) => requestIdOf(request.headers),
  });

  app.server.maxConnections = config.http.maxConnections;
  if (onRoute) app.addHook('onRoute', onRoute);
  app.decorateRequest('bot', null);
  app.decorateRequest('botAdmission', null);
  app.decorateRequest('authenticateOptionalBot', null);
  let closing = false;
  // Keep-alive connections that go idle while in-flight requests drain are closed at once, not
  // after keepAliveTimeout: otherwise one idle client would hold shutdown open.
  let closeIdle: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    closeIdle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
  });
  app.addHook('onClose', async () => clearInterval(closeIdle));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Requests that still arrive while in-flight ones drain are told to go elsewhere, in our shape.
    if (closing) {
      throw new ProblemError(503, 'unavailable', 'The server is shutting down. Retry shortly.', {
        headers: { 'retry-after': 1, connection: 'close' },
      });
    }
  });

  await app.register(metrics, { reads, ...(poolStats ? { poolStats } : {}) });
  await app.register(responseCache, { limits: config.responseCache, requestIdOf });
  // Before any route: it attaches itself to each route as it is added.
  await app.register(compression);
  if (reads.replicated) {
    // A bot (or a person) reads its own writes: once a request that may have written is answered,
    // that credential's reads go to the primary for a while (platform/db/read-routing.ts).
    app.addHook('onSend', async (request) => {
      if (!readMethods.has(request.method) && !request.routeOptions.config.relay)
        reads.wrote(request.headers);
    });
  }
  await app.register(securityHeaders, { secure });
  // An error page shows who is signed in, as every page does.
  const viewer = async (request: FastifyRequest) => {
    const userId = request.session?.userId;
    return userId ? viewerOf(await getMe(db, userId)) : null;
  };
  await app.register(errors, {
    renderHtmlError: (problem, request) => renderErrorPage(problem, request, viewer),
    settleFirst: settleAdmissionFirst,
  });
  await app.register(jsonBody);
  await app.register(docs, { spec, secure, publicUrl: config.publicUrl });
  const mailer = createMailer(config, app.log);
  if (config.identity.keySecretEphemeral)
    app.log.warn(
      'IDENTITY_KEY_SECRET is not set: identity tokens are signed with a key made under a secret generated for this process',
    );
  app.addHook('onClose', async () => mailer.close());
  // Before the routes: the limiter attaches itself to routes as they are added.
  if (limited) await app.register(rateLimiting, { db, clock });
  await app.register(webhookDelivery, { db, settings: config.webhooks });
  await app.register(eventStreams, { db, signals });
  await app.register(backgroundJobsPlugin, {
    db,
    jobs: backgroundJobs(app, { db, clock, webhooks: config.webhooks, trust: config }),
  });
  const limits = { ...config.limits, 'sign-in-mails': config.humans.emailLimits.perIp };
  const secretGuard = createSecretGuard(secretScanner(spec), (key, writerKeyHash) =>
    revokeKeyFoundInText(db, key, writerKeyHash),
  );
  const routes = {
    spec,
    handlers: createHandlers({
      db,
      reads,
      config,
      clock,
      mailer,
      oauthProviders: oauthProviders(config.humans.oauthProviders),
    }),
    ...(limited ? { limits } : {}),
    botAdmission: (extension: RateLimitExtension) =>
      botAdmission(extension, limited ? limits : undefined, config.ipLimitFactor, config, db, clock),
    compilers: routeCompilers(spec, [answerSheetKeyword]),
    // Health probes come every few seconds from every load balancer: their request lines are logged
    // only at LOG_LEVEL debug or trace; at info, only their warnings (an unreachable database).
    logLevels: Object.fromEntries(
      (['getHealth', 'getReadiness'] as const).map((id) => [
        id,
        config.logLevel === 'info' ? 'warn' : config.logLevel,
      ]),
    ),
    // A page of followed bots' posts, or of joined communities', is the caller's own: never kept.
    cached: {
      getFeed: app.responseCache.route('feed', (request) => {
        const query = request.query as { following?: boolean; joined?: boolean };
        return query.following || query.joined ? undefined : firstPageKey(request);
      }),
      // The same bytes for everyone until a key is made: answered before the router, as verifiers
      // that fetch it on every unknown kid (and agents polling skill.json) would want.
      getIdentityKeys: app.responseCache.route('jwks', firstPageKey),
      getSkillManifest: app.responseCache.route('skill.json', firstPageKey),
    },
    ...(scanning ? { secretGuard } : {}),
    security: {
      bearerAuth: bearerAuth(db, clock),
      cookieAuth: sessionAuth(config),
      metricsToken: metricsAuth(config.metricsToken),
    },
  };
  // Only the humans' operations (sign-in, sign-out and every cookieAuth one, the moderators' too) and the pages for people
  // read or write a session, so only their routes carry the cookie and session hooks, which sign
  // and verify on every request they see; bot and public API routes never pay for them, and ignore
  // cookies as documented.
  const cookieOnly = (op: Operation) =>
    (op.operation.security ?? []).length > 0 &&
    (op.operation.security ?? []).every((requirement) => Object.keys(requirement).join() === 'cookieAuth');
  const forHumans = (op: Operation) => (op.operation.tags?.includes('humans') ?? false) || cookieOnly(op);
  await app.register(async function humanRoutes(scope) {
    await scope.register(sessions, { db, config });
    await scope.register(openapiRoutes, { ...routes, include: forHumans });
    await scope.register(webPages, {
      config,
      clock,
      spec,
      compilers: routes.compilers,
      ...(limited ? { limits } : {}),
      personOf: (userId) => getMe(db, userId),
      secretGuard,
      areas: areaPages({ db, reads, config, clock, mailer }),
    });
  });
  // Everything else is for bots and for anyone reading: callable from a page on any origin. The
  // MCP endpoint answers its failures as JSON-RPC errors, which MCP clients read, not as problems.
  const forAnyOrigin = (op: Operation) => !forHumans(op);
  const forMcp = (op: Operation) => op.path === '/mcp';
  await app.register(async function apiRoutes(scope) {
    await scope.register(cors, { spec, operations: listOperations(spec).filter(forAnyOrigin) });
    await scope.register(openapiRoutes, { ...routes, include: (op) => forAnyOrigin(op) && !forMcp(op) });
    await scope.register(async function mcpRoutes(mcp) {
      mcp.setErrorHandler(jsonRpcErrors);
      await mcp.register(openapiRoutes, { ...routes, include: forMcp, relayed: ['callMcp'] });
    });
  });
  return app;
}
