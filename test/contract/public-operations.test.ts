// Bots send their key on every request, public reads included: on every operation the spec marks
// public (`security: []`), an Authorization header of any kind is ignored, never a 401.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listOperations, loadSpec, requiredSecuritySchemes } from '../../src/platform/spec/openapi.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { useTestApp } from '../helpers/app.js';
import { injectOrOpen } from '../helpers/streams.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();
const spec = loadSpec();
const publicOperations = listOperations(spec).filter((op) => requiredSecuritySchemes(spec, op).length === 0);

/** A request each public operation can take: its path with placeholder values, its example body and required query. */
function requestFor(op: (typeof publicOperations)[number]) {
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === 'provider' ? 'nope' : name === 'handle' ? 'alice' : '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  );
  const query = Object.fromEntries(
    op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, 'x']),
  );
  const body = op.operation.requestBody?.content['application/json'] as
    { example?: object; examples?: Record<string, { value: object }> } | undefined;
  const payload = body?.example ?? Object.values(body?.examples ?? {})[0]?.value;
  return { method: op.method.toUpperCase() as 'GET', url, query, ...(payload ? { payload } : {}) };
}

describe('public operations and the Authorization header', () => {
  test(`all ${publicOperations.length} public operations ignore a valid key, a broken key and a foreign scheme`, async () => {
    assert.ok(publicOperations.length >= 20);
    const { api_key } = await registerBot(t.app, { name: 'key-sender' });
    for (const op of publicOperations) {
      for (const authorization of [
        `Bearer ${api_key}`,
        'Bearer bp_broken',
        'Basic dXNlcjpwYXNz',
        'garbage',
      ]) {
        const response = await injectOrOpen(t.app, { ...requestFor(op), headers: { authorization } });
        assert.notEqual(
          response.statusCode,
          401,
          `${op.operationId} with "${authorization}": ${response.body}`,
        );
        assertContract(op.operationId as OperationId, response);
      }
    }
  });
});
