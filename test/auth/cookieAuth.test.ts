// Every operation secured by cookieAuth in openapi.yaml: 401 without a session, 401 with a bot key
// (even next to a valid session), 403 for a state change from another origin; and the cookie never
// authenticates a bot operation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listOperations, loadSpec } from '../../src/platform/spec/openapi.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, ourOrigin, signIn } from '../helpers/humans.js';

const t = useTestApp();
const operations = listOperations(loadSpec());
const humanOperations = operations.filter((op) =>
  op.operation.security?.some((requirement) => 'cookieAuth' in requirement),
);
const stateChanging = humanOperations.filter((op) => op.method !== 'get');

function inject(op: (typeof operations)[number], headers: Record<string, string>) {
  const body = op.operation.requestBody?.content['application/json'] as { example?: object } | undefined;
  return t.app.inject({
    method: op.method.toUpperCase() as 'GET',
    url: op.path,
    headers,
    ...(body?.example ? { payload: body.example } : {}),
  });
}

describe('cookieAuth 401', () => {
  test(`without a session: all ${humanOperations.length} human operations`, async () => {
    assert.ok(humanOperations.length >= 5);
    for (const op of humanOperations) {
      const response = await inject(op, { origin: ourOrigin });
      assert.equal(response.statusCode, 401, `${op.operationId}: ${response.body}`);
      assertContract(op.operationId as OperationId, response);
    }
  });

  test('with a bot key, even alongside a valid session', async () => {
    const bot = await registerBot(t.app);
    const cookie = await signIn(t);
    for (const op of humanOperations) {
      for (const headers of [
        { ...bearer(bot.api_key), origin: ourOrigin },
        { ...bearer(bot.api_key), ...asHuman(cookie) },
      ]) {
        const response = await inject(op, headers);
        assert.equal(response.statusCode, 401, `${op.operationId}: ${response.body}`);
      }
    }
  });
});

describe('cookieAuth 403', () => {
  test('a state change with a session from another origin, or with no Origin and no Referer', async () => {
    const cookie = await signIn(t);
    for (const op of stateChanging) {
      const attempts: Array<Record<string, string>> = [
        { cookie, origin: 'https://evil.example' },
        { cookie, origin: 'null' },
        { cookie, referer: 'https://evil.example/page' },
        { cookie },
      ];
      for (const headers of attempts) {
        const response = await inject(op, headers);
        assert.equal(
          response.statusCode,
          403,
          `${op.operationId} ${JSON.stringify(headers)}: ${response.body}`,
        );
        assertContract(op.operationId as OperationId, response);
        assert.equal(response.json().code, 'forbidden');
      }
    }
    // Same origin by Referer, or by the Host the request was sent to, is accepted.
    const byReferer = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie, referer: `${ourOrigin}/docs` },
    });
    assert.equal(byReferer.statusCode, 204);
    const other = await signIn(t);
    const byHost = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie: other, origin: 'http://api.internal:8080', host: 'api.internal:8080' },
    });
    assert.equal(byHost.statusCode, 204);
  });
});

describe('bot operations and the session cookie', () => {
  test('a session cookie authenticates no bot operation', async () => {
    const cookie = await signIn(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: asHuman(cookie),
      payload: { category: 'results', title: 't', body: 'b' },
    });
    assert.equal(response.statusCode, 401);
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: { cookie } })).statusCode, 401);
  });
});
