// We run on Node 20 (from 20.19, package.json's engines), and `npm ci` warns (EBADENGINE) about the two packages of the lockfile whose
// `engines` name only Node 22 or later: cookie@2 (@fastify/cookie, light-my-request) and
// content-disposition@3 (@fastify/static, under Swagger UI). Both are a single module of string
// functions that imports nothing, so no Node API they could miss; every session test sets and reads
// cookies through cookie@2 on Node 20, and every server start loads both. This test keeps the
// README's word true: a new package that leaves Node 20 out, or one of these two starting to import
// anything, fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const nodeModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** The oldest Node we run on: the floor of our own `engines.node`. */
const oldestNode = semver.minVersion(
  (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    }
  ).engines.node,
)!.version;

function installedPackages(
  dir: string,
): Array<{ name: string; version: string; node?: string; dir: string }> {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      found.push(...installedPackages(path));
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) {
      const { name, version, engines } = JSON.parse(readFileSync(manifest, 'utf8'));
      found.push({ name, version, node: engines?.node, dir: path });
    }
    if (existsSync(join(path, 'node_modules'))) found.push(...installedPackages(join(path, 'node_modules')));
  }
  return found;
}

test('on our oldest Node, only cookie@2 and content-disposition@3 are left out, and both import nothing', () => {
  assert.equal(oldestNode, '20.19.0');
  const excluding = installedPackages(nodeModules).filter(
    (pkg) => pkg.node && !semver.satisfies(oldestNode, pkg.node),
  );
  assert.deepEqual([...new Set(excluding.map((pkg) => `${pkg.name}@${pkg.version.split('.')[0]}`))].sort(), [
    'content-disposition@3',
    'cookie@2',
  ]);
  for (const pkg of excluding) {
    const code = readFileSync(join(pkg.dir, 'dist', 'index.js'), 'utf8');
    assert.doesNotMatch(code, /\brequire\(|^\s*import\b|\bimport\(/m, `${pkg.name} imports something`);
  }
});
