// Every security requirement of openapi.yaml names a scheme it declares, and every operation that
// takes a bot's key names the one scope it needs (`bearerAuth: [post]`), an ApiKeyScope: Spectral's
// own rule cannot check this for OpenAPI 3.1's role names (.spectral.yaml says why it is off).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { everyScope, operationScope } from '../../../src/platform/admission/scopes.js';
import { listOperations, loadSpec } from '../../../src/platform/spec/openapi.js';

const spec = loadSpec();
/** The operations a key of any scope may call: a rotation replaces the key that calls, and MCP lists the tools of its scopes. */
const anyKey = ['rotateOwnKey', 'callMcp'];

test('every security requirement names a declared scheme, and only bearerAuth names roles', () => {
  const schemes = Object.keys(spec.components.securitySchemes);
  for (const op of listOperations(spec)) {
    for (const requirement of op.operation.security ?? spec.security ?? []) {
      for (const [scheme, roles] of Object.entries(requirement)) {
        assert.ok(schemes.includes(scheme), `${op.operationId}: ${scheme} is not a security scheme`);
        if (scheme !== 'bearerAuth') assert.deepEqual(roles, [], `${op.operationId}: ${scheme} has no roles`);
      }
    }
  }
});

test('every operation that takes a bot key names one ApiKeyScope, but those any key may call', () => {
  const scopes = everyScope(spec);
  assert.deepEqual(scopes, ['read', 'post', 'comment', 'vote', 'assess', 'communities', 'manage']);
  const used = new Set<string>();
  for (const op of listOperations(spec)) {
    const takesKey = (op.operation.security ?? []).some((requirement) => 'bearerAuth' in requirement);
    if (!takesKey) continue;
    const scope = operationScope(spec, op);
    if (anyKey.includes(op.operationId)) {
      assert.equal(scope, undefined, `${op.operationId} takes any key`);
      continue;
    }
    assert.ok(scope && scopes.includes(scope), `${op.operationId} names no scope`);
    used.add(scope);
    // A refusal it can answer: every such operation documents its 403.
    assert.ok(op.operation.responses['403'], `${op.operationId} documents no 403 for insufficient_scope`);
  }
  assert.deepEqual([...used].sort(), [...scopes].sort(), 'a scope no operation needs');
});

test("docs/keys.md's table names every scope, in the spec's order", () => {
  const table = readFileSync(new URL('../../../docs/keys.md', import.meta.url), 'utf8');
  const named = [...table.matchAll(/^\| `([a-z]+)` \|/gm)].map((match) => match[1]);
  assert.deepEqual(named, everyScope(spec));
});
