// Every route of the app: the operations of openapi.yaml, each with its handler (src/areas.ts), its
// security scheme, limits, secret scanning and cached first page, in three scopes: people's (the
// humans' operations and the pages, with sessions), everyone else's (bots and readers, callable from
// any origin), and MCP's (failures as JSON-RPC errors, which MCP clients read).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from './config.js';
import { answerSheetKeyword } from './assessments/answer-sheet-keyword.js';
import { areaPages, createHandlers } from './areas.js';
import { getMe } from './auth/service.js';
import type { Mailer } from './auth/mailer.js';
import { oauthProviders } from './auth/oauth.js';
import { revokeKeyFoundInText } from './bots/service.js';
import { jsonRpcErrors } from './mcp/json-rpc-errors.js';
import { bearerAuth } from './platform/admission/bearer-auth.js';
import { botAdmission } from './platform/admission/rate-limit-plugin.js';
import type { Clock } from './platform/db/clock.js';
import type { ReadRouting } from './platform/db/read-routing.js';
import type { Db } from './platform/db/schema.js';
import cors from './platform/http/cors.js';
import { metricsAuth } from './platform/http/metrics.js';
import openapiRoutes, { routeCompilers } from './platform/operations/routes.js';
import { firstPageKey } from './platform/response-cache/requests.js';
import { textGuard as createTextGuard } from './platform/text-checks/guard.js';
import { labeller } from './platform/text-checks/labels.js';
import { secretScanner } from './platform/text-checks/secret-scanner.js';
import sessions, { sessionAuth } from './platform/sessions/plugin.js';
import { listOperations, type OpenApiDocument, type Operation } from './platform/spec/openapi.js';
import webPages from './platform/web/plugin.js';

export interface RoutesOptions {
  spec: OpenApiDocument;
  config: Config;
  db: Db;
  reads: ReadRouting;
  clock: Clock | undefined;
  mailer: Mailer;
  /** Off only for the limiter's benchmark. */
  limited: boolean;
  /** Off only for secret scanning's benchmark. */
  scanning: boolean;
}

/**
 * Only the humans' operations (sign-in, sign-out and every cookieAuth one, the moderators' too) and
 * the pages for people read or write a session, so only their routes carry the cookie and session
 * hooks, which sign and verify on every request they see; bot and public API routes never pay for
 * them, and ignore cookies as documented.
 */
const forHumans = (op: Operation) => {
  const security = op.operation.security ?? [];
  const cookieOnly =
    security.length > 0 && security.every((requirement) => Object.keys(requirement).join() === 'cookieAuth');
  return (op.operation.tags?.includes('humans') ?? false) || cookieOnly;
};
const forMcp = (op: Operation) => op.path === '/mcp';

export default fp<RoutesOptions>(
  async function routes(app: FastifyInstance, options) {
    const { spec, config, db, reads, clock, mailer, limited, scanning } = options;
    const limits = { ...config.limits, 'sign-in-mails': config.humans.emailLimits.perIp };
    const textGuard = createTextGuard(secretScanner(spec), labeller(spec), (key, writerKeyHash) =>
      revokeKeyFoundInText(db, key, writerKeyHash),
    );
    const operations = {
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
      botAdmission: (
        extension: Parameters<typeof botAdmission>[0],
        scope: Parameters<typeof botAdmission>[1],
      ) =>
        botAdmission(extension, scope, limited ? limits : undefined, config.ipLimitFactor, config, db, clock),
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
      ...(scanning ? { textGuard } : {}),
      security: {
        bearerAuth: bearerAuth(db, clock),
        cookieAuth: sessionAuth(config),
        metricsToken: metricsAuth(config.metricsToken),
      },
    };
    await app.register(async function humanRoutes(scope) {
      await scope.register(sessions, { db, config });
      await scope.register(openapiRoutes, { ...operations, include: forHumans });
      await scope.register(webPages, {
        config,
        clock,
        spec,
        compilers: operations.compilers,
        ...(limited ? { limits } : {}),
        personOf: (userId) => getMe(db, userId),
        textGuard,
        areas: areaPages({ db, reads, config, clock, mailer }),
      });
    });
    const forAnyOrigin = (op: Operation) => !forHumans(op);
    await app.register(async function apiRoutes(scope) {
      await scope.register(cors, { spec, operations: listOperations(spec).filter(forAnyOrigin) });
      await scope.register(openapiRoutes, {
        ...operations,
        include: (op) => forAnyOrigin(op) && !forMcp(op),
      });
      await scope.register(async function mcpRoutes(mcp) {
        mcp.setErrorHandler(jsonRpcErrors);
        await mcp.register(openapiRoutes, { ...operations, include: forMcp, relayed: ['callMcp'] });
      });
    });
  },
  { name: 'routes', dependencies: ['errors', 'response-cache', 'event-streams', 'webhook-delivery'] },
);
