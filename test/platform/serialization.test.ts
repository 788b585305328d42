// 2xx bodies are written by serializers compiled from their schemas in openapi.yaml, and the ETag
// of a conditional GET is a hash of exactly those bytes. The operations' own tests see the
// results; this one gives a handler a body the spec does not describe.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { currentQuestionnaire } from '../../src/assessments/scoring.js';
import { loadSpec } from '../../src/openapi.js';
import type { HandlerMap } from '../../src/operation-types.js';
import errors from '../../src/plugins/errors.js';
import openapiRoutes, { routeCompilers } from '../../src/plugins/openapi-routes.js';

const spec = loadSpec();
const questions = {
  version: currentQuestionnaire.version,
  scale: currentQuestionnaire.scale,
  questions: currentQuestionnaire.questions.map(({ id, text }) => ({ id, text })),
};
let app: FastifyInstance;

before(async () => {
  app = Fastify({ logger: false });
  await app.register(errors);
  const handlers = {
    async getQuestions() {
      // A property no schema documents, as a query selecting one column too many would return.
      return { status: 200, headers: { 'cache-control': 'public, max-age=3600' }, body: { ...questions, internal_note: 'not for clients' } };
    },
  } as unknown as HandlerMap;
  await app.register(openapiRoutes, {
    spec,
    handlers,
    security: {},
    compilers: routeCompilers(spec),
    include: (op) => op.operationId === 'getQuestions',
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

    const unchanged = await app.inject({ method: 'GET', url: '/api/test/questions', headers: { 'if-none-match': expected } });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.body, '');
    assert.equal(unchanged.headers.etag, expected);
    assert.equal(unchanged.headers['cache-control'], 'public, max-age=3600');
  });
});
