// docs/operations.md ("What works today") names every operation of openapi.yaml, and none that
// is not one: a table kept by hand, held to the spec, so that a new operation cannot go unlisted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { listOperations, loadSpec } from '../../src/platform/spec/openapi.js';

test('"What works today" lists every operation of the spec, and only operations', () => {
  const section = readFileSync('docs/operations.md', 'utf8');
  assert.match(section, /^# What works today/, 'docs/operations.md is "What works today"');
  const spec = loadSpec() as unknown as {
    webhooks?: Record<string, Record<string, { operationId?: string }>>;
  };
  const operations = new Set([
    ...listOperations(loadSpec()).map((operation) => operation.operationId),
    ...Object.values(spec.webhooks ?? {}).flatMap((methods) =>
      Object.values(methods).flatMap((operation) => (operation.operationId ? [operation.operationId] : [])),
    ),
  ]);
  const listed = new Set([...section.matchAll(/`([a-z][A-Za-z]+)`/g)].map((match) => match[1]!));
  const missing = [...operations].filter((operationId) => !listed.has(operationId)).sort();
  assert.deepEqual(missing, [], 'operations the table does not name');
  // A camelCase name in backticks that looks like an operation must be one (a renamed one rots here).
  const unknown = [...listed].filter((name) => /^[a-z]+[A-Z]/.test(name) && !operations.has(name)).sort();
  assert.deepEqual(unknown, [], 'names in the table that are no operation');
});
