// Builds the Fastify application as a list of named plugins; it never listens (src/server.ts does).
// A request goes: request id -> security headers -> session (when a cookie came) -> route from
// openapi.yaml -> authentication (the operation's security scheme) -> rate limit (`x-rate-limit`)
// -> body parsing and validation (the spec's schemas) -> handler -> repository -> database; any
// failure leaves through the one problem+json error path. A first page of the feed kept in memory
// answers before all of that (src/platform/response-cache/README.md).
import Fastify, { type FastifyRequest, type RouteOptions } from 'fastify';
import type { Config } from './config.js';
import { getMe } from './auth/service.js';
import { createMailer } from './auth/mailer.js';
import { backgroundJobs } from './jobs.js';
import routes from './routes.js';
import { settleAdmissionFirst } from './platform/admission/settle-on-error.js';
import rateLimiting from './platform/admission/rate-limit-plugin.js';
import type { Clock } from './platform/db/clock.js';
import { primaryOnly, type ReadRouting } from './platform/db/read-routing.js';
import readYourWrites from './platform/db/read-your-writes.js';
import type { Db } from './platform/db/schema.js';
import type { DatabaseSignals } from './platform/db/signals.js';
import eventStreams from './platform/event-streams/plugin.js';
import compression from './platform/http/compression.js';
import docs from './platform/http/docs.js';
import errors from './platform/http/errors.js';
import jsonBody from './platform/http/json-body.js';
import lifecycle from './platform/http/lifecycle.js';
import metrics, { type PoolStats } from './platform/http/metrics.js';
import securityHeaders from './platform/http/security-headers.js';
import { requestIds, serverOptions } from './platform/http/server-options.js';
import backgroundJobsPlugin from './platform/jobs/plugin.js';
import responseCache from './platform/response-cache/plugin.js';
import { loadSpec } from './platform/spec/openapi.js';
import { renderErrorPage } from './platform/web/document.js';
import { viewerOf } from './platform/web/layout.js';
import webhookDelivery from './webhooks/delivery/plugin.js';

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
  /** The text checks (hidden text, secrets, labels) are always on; only their benchmark turns them off, to measure their cost. */
  secretScanning?: boolean;
  /** The database pool's state for /metrics (a Postgres server's pool; PGlite has none). */
  poolStats?: () => PoolStats;
  /** What the database NOTIFYs (OpenDatabase's signals); without them the event streams answer 503. */
  signals?: DatabaseSignals;
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
  const secure = config.publicUrl.startsWith('https:');
  const requestIdOf = requestIds(spec);
  const app = Fastify(serverOptions(config, requestIdOf, logStream));
  if (onRoute) app.addHook('onRoute', onRoute);
  app.decorateRequest('bot', null);
  app.decorateRequest('apiKey', null);
  app.decorateRequest('botAdmission', null);
  app.decorateRequest('authenticateOptionalBot', null);
  const mailer = createMailer(config, app.log);
  app.addHook('onClose', async () => mailer.close());
  if (config.identity.keySecretEphemeral)
    app.log.warn(
      'IDENTITY_KEY_SECRET is not set: identity tokens are signed with a key made under a secret generated for this process',
    );
  if (config.messages.masterKeyEphemeral)
    app.log.warn(
      'DM_MASTER_KEY is not set: the direct messages written now are sealed under a key generated for this process, unreadable once it stops',
    );
  // An error page shows who is signed in, as every page does.
  const viewer = async (request: FastifyRequest) => {
    const userId = request.session?.userId;
    return userId ? viewerOf(await getMe(db, userId)) : null;
  };

  await app.register(lifecycle, { maxConnections: config.http.maxConnections });
  await app.register(metrics, { reads, ...(poolStats ? { poolStats } : {}) });
  await app.register(responseCache, { limits: config.responseCache, requestIdOf });
  // Before any route: it attaches itself to each route as it is added.
  await app.register(compression);
  await app.register(readYourWrites, { reads });
  await app.register(securityHeaders, { secure });
  await app.register(errors, {
    renderHtmlError: (problem, request) => renderErrorPage(problem, request, viewer),
    settleFirst: settleAdmissionFirst,
  });
  await app.register(jsonBody);
  await app.register(docs, { spec, secure, publicUrl: config.publicUrl });
  // Before the routes: the limiter attaches itself to routes as they are added.
  if (limited) await app.register(rateLimiting, { db, clock });
  await app.register(webhookDelivery, { db, settings: config.webhooks });
  await app.register(eventStreams, { db, signals });
  await app.register(backgroundJobsPlugin, {
    db,
    jobs: backgroundJobs(app, {
      db,
      clock,
      webhooks: config.webhooks,
      trust: config,
      messages: config.messages,
    }),
  });
  await app.register(routes, { spec, config, db, reads, clock, mailer, limited, scanning });
  return app;
}
