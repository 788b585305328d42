// 2xx bodies are written by serializers compiled from their schemas in openapi.yaml, and the ETag
// of a conditional GET is a hash of exactly those bytes. The operations' own tests see the
// results; this one gives a handler a body the spec does not describe.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { currentBotQuestionnaire } from '../../../src/assessments/scoring.js';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import type { HandlerMap } from '../../../src/platform/operations/handler-types.js';
import errors from '../../../src/platform/http/errors.js';
import openapiRoutes, { routeCompilers } from '../../../src/platform/operations/routes.js';

const spec = loadSpec();
const questions = {
  version: currentBotQuestionnaire.version,
  scale: currentBotQuestionnaire.scale,
  questions: currentBotQuestionnaire.questions.map(({ id, text }) => ({ id, text })),
};
let app: FastifyInstance;

before(async () => {
  app = Fastify({ logger: false });
  await app.register(errors);
  const handlers = {
    async getQuestions() {
      // A property no schema documents, as a query selecting one column too many would return.
      return {
        status: 200,
        headers: { 'cache-control': 'public, max-age=3600' },
        body: { ...questions, internal_note: 'not for clients' },
      };
    },
    async getAnalyticsOverview() {
      // A body missing what its schema requires: a bug, which must still end as a problem.
      return { status: 200, body: {} };
    },
  } as unknown as HandlerMap;
  await app.register(openapiRoutes, {
    spec,
    handlers,
    security: {},
    compilers: routeCompilers(spec),
    include: (op) => op.operationId === 'getQuestions' || op.operationId === 'getAnalyticsOverview',
  });
  await app.ready();
});
after(() => app.close());

describe('response serialization from the spec', () => {
  test('writes only the properties the response schema documents, as application/json', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/test/questions' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(response.json(), questions);
  });

  test('the ETag hashes the bytes sent, and If-None-Match naming it gets a 304 without a body', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/test/questions' });
    const expected = `W/"${createHash('sha256').update(response.body).digest('base64url').slice(0, 27)}"`;
    assert.equal(response.headers.etag, expected);

    const unchanged = await app.inject({
      method: 'GET',
      url: '/api/test/questions',
      headers: { 'if-none-match': expected },
    });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.body, '');
    assert.equal(unchanged.headers.etag, expected);
    assert.equal(unchanged.headers['cache-control'], 'public, max-age=3600');
    assert.equal(unchanged.headers['content-type'], undefined, 'a 304 has no body to describe');
  });

  test('a body its schema cannot write is a 500 problem that names nothing internal', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/analytics/overview' });
    assert.equal(response.statusCode, 500);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = response.json();
    assert.equal(problem.code, 'internal');
    assert.doesNotMatch(response.body, /required/);
  });

  test('HEAD answers as GET does, with the same ETag, and 304 to a matching If-None-Match', async () => {
    const get = await app.inject({ method: 'GET', url: '/api/test/questions' });
    const head = await app.inject({ method: 'HEAD', url: '/api/test/questions' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, get.headers.etag);
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)));

    const unchanged = await app.inject({
      method: 'HEAD',
      url: '/api/test/questions',
      headers: { 'if-none-match': String(get.headers.etag) },
    });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.headers.etag, get.headers.etag);
  });
});
