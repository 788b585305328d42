// Tools that import the spec by dereferencing it (Postman's importer, Portman, several SDK
// generators) need every $ref to resolve to a finite document: a schema that refers to itself
// stops them with "Circular $ref pointer". The spec dereferences fully, as they do it.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import $RefParser from '@apidevtools/json-schema-ref-parser';

const specPath = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

/** The JSON pointers of every $ref still in a value. */
function refsIn(value: unknown, pointer = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => refsIn(item, `${pointer}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === '$ref' ? [pointer] : refsIn(item, `${pointer}/${key}`),
  );
}

test('openapi.yaml dereferences with no circular $ref, and none is left', async () => {
  // circular: false makes a self-referring schema an error, as the importers that stop on one do.
  const dereferenced = await $RefParser.dereference(specPath, { dereference: { circular: false } });
  assert.deepEqual(refsIn(dereferenced), []);
  // A plain JSON document once dereferenced: what a generator serializes and reads back.
  assert.doesNotThrow(() => JSON.stringify(dereferenced));
});
