// The spec is the runtime truth: every operation of openapi.yaml is a route, every route (but the
// docs and the pages for people) is an operation, and operations of later issues answer 501 until their issue lands.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { primaryOnly } from '../../../src/platform/db/read-routing.js';
import { createHandlers } from '../../../src/areas.js';
import { listOperations, loadSpec } from '../../../src/platform/spec/openapi.js';
import { docsPrefix } from '../../../src/platform/http/docs.js';
import { testConfig } from '../../helpers/app.js';
import { injectOrOpen } from '../../helpers/streams.js';
import { registerBot } from '../../helpers/bots.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

const spec = loadSpec();
const operations = listOperations(spec);
const routes: RouteOptions[] = [];
let app: FastifyInstance;
let database: TestDatabase;

before(async () => {
  database = await createTestDatabase();
  app = await buildApp({
    config: testConfig({ logLevel: 'silent' }),
    db: database.db,
    signals: database.signals,
    onRoute: (route) => routes.push(route),
  });
  await app.ready();
});
after(async () => {
  await app.close();
  await database.close();
});

const key = (method: string, url: string) => `${method} ${url}`;

describe('routes and operations', () => {
  test('every operation of openapi.yaml has a route with its operationId', () => {
    for (const op of operations) {
      const url = op.path.replace(/\{([^}]+)\}/g, ':$1');
      const route = routes.find((r) => r.url === url && r.method === op.method.toUpperCase());
      assert.ok(route, `no route for ${op.operationId} (${op.method.toUpperCase()} ${op.path})`);
      assert.equal(route.config?.operationId, op.operationId);
    }
  });

  test('every route is an operation of openapi.yaml (the docs and the pages for people excepted)', () => {
    const specified = new Set(
      operations.map((op) => key(op.method.toUpperCase(), op.path.replace(/\{([^}]+)\}/g, ':$1'))),
    );
    for (const route of routes) {
      if (route.url.startsWith(docsPrefix)) continue;
      // The pages for people (each area's pages.tsx) are HTML, not API operations, and never under /api/.
      if (route.config?.html) {
        assert.ok(!route.url.startsWith('/api/'), `page ${route.url} is under /api/`);
        continue;
      }
      // The CORS preflight of an operation's path (plugins/cors.ts) answers for the operations there.
      if (route.config?.preflight) {
        assert.deepEqual([route.method].flat(), ['OPTIONS']);
        assert.ok(
          operations.some((op) => op.path.replace(/\{([^}]+)\}/g, ':$1') === route.url),
          `preflight route ${route.url} is no path of openapi.yaml`,
        );
        continue;
      }
      for (const method of [route.method].flat()) {
        // Fastify answers HEAD for every GET by itself.
        if (method === 'HEAD') continue;
        assert.ok(
          specified.has(key(method, route.url)),
          `route ${method} ${route.url} has no operation in openapi.yaml`,
        );
      }
    }
  });

  test('operationIds are unique and the handler map has exactly one handler for each', () => {
    const ids = operations.map((op) => op.operationId);
    assert.equal(new Set(ids).size, ids.length);
    const mailer = { sendSignInLink: async () => {}, close() {}, logsLinks: true };
    const handlers = createHandlers({
      db: database.db,
      reads: primaryOnly(database.db),
      config: testConfig(),
      clock: () => new Date(),
      mailer,
      oauthProviders: new Map(),
    });
    assert.deepEqual(Object.keys(handlers).sort(), [...ids].sort());
  });
});

describe('every operation is implemented', () => {
  test('none answers 501, whatever its input', async () => {
    const { api_key } = await registerBot(app);
    for (const op of operations) {
      const exampleBody = op.operation.requestBody?.content['application/json'] as
        { example?: unknown; examples?: Record<string, { value: unknown }> } | undefined;
      const payload = exampleBody?.example ?? Object.values(exampleBody?.examples ?? {})[0]?.value;
      const requiredQuery = op.parameters
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => [p.name, 'x']);
      const response = await injectOrOpen(app, {
        method: op.method.toUpperCase(),
        url: op.path
          .replace('{id}', randomUUID())
          .replace('{handle}', 'alice')
          .replace('{provider}', 'github'),
        query: Object.fromEntries(requiredQuery),
        headers: { authorization: `Bearer ${api_key}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      assert.ok(response.statusCode < 500, `${op.operationId}: ${response.statusCode} ${response.body}`);
    }
  });
});
