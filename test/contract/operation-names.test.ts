// The operationId is the name all the way down (STYLE.md 20): a handler that hands its work to a
// service function hands it to the one named by its operationId, so that searching `createPost`
// finds the handler, the service, the test and the MCP tool. Handlers that answer alone (static
// files, the mechanisms' streams) call no service function and are left out by what they call.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listOperations, loadSpec } from '../../src/platform/spec/openapi.js';

const handlerFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? handlerFiles(join(dir, entry.name))
      : entry.name === 'handlers.ts'
        ? [join(dir, entry.name)]
        : [],
  );

/** The names a handlers file imports from its area's services. */
function serviceImports(source: string): Set<string> {
  const names = new Set<string>();
  for (const match of source.matchAll(/import \{([^}]*)\} from '(\.[^']*)'/g))
    if (/service|sign-in|stream/.test(match[2]!))
      for (const name of match[1]!.split(','))
        if (name.trim() && !name.trim().startsWith('type '))
          names.add(
            name
              .trim()
              .split(/\s+as\s+/)
              .pop()!,
          );
  return names;
}

test('every handler that calls a service function calls the one named by its operationId', () => {
  const operations = new Set(listOperations(loadSpec()).map((operation) => operation.operationId));
  const misnamed: string[] = [];
  let named = 0;
  for (const file of handlerFiles('src')) {
    const source = readFileSync(file, 'utf8');
    const services = serviceImports(source);
    for (const match of source.matchAll(/\n {4}(?:async )?(\w+)(?:\(|: async \()/g)) {
      const operationId = match[1]!;
      if (!operations.has(operationId)) continue;
      const rest = source.slice(match.index + match[0].length);
      const body = rest.slice(0, rest.search(/\n {4}(?:async )?\w+(?:\(|: async \()|\n {2}\} satisfies/));
      const called = [...body.matchAll(/\b(\w+)\(/g)]
        .map((call) => call[1]!)
        .filter((name) => services.has(name));
      if (called.length === 0) continue;
      if (called.includes(operationId)) named++;
      else misnamed.push(`${operationId} (${file}) calls ${[...new Set(called)].join(', ')}`);
    }
  }
  assert.deepEqual(misnamed, [], 'handlers whose service function has another name');
  assert.ok(named >= 60, `only ${named} operations name their service function`);
});
