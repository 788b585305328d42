// `npm ci` runs no dependency's install script, and has none left to warn about: every package of
// the lockfile that has one is named in package.json's `allowScripts` (denied: see the README).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

test('every dependency with an install script is covered by allowScripts, and denied', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const { allowScripts = {} } = read('package.json') as { allowScripts?: Record<string, boolean> };
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.length > 0, 'the lockfile has packages with install scripts');
  assert.deepEqual(
    withScripts.filter((name) => !Object.hasOwn(allowScripts, name)),
    [],
    'each is reviewed in allowScripts',
  );
  assert.deepEqual(
    Object.entries(allowScripts).filter(([, allowed]) => allowed),
    [],
    'none may run: the platform needs none of them',
  );
});
