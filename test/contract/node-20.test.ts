// We run on Node 20, and `npm ci` warns (EBADENGINE) about the two packages of the lockfile whose
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

const nodeModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Whether an `engines.node` range lets a Node 20 in: some alternative whose major can be 20. */
function allowsNode20(range: string): boolean {
  return range.split('||').some((alternative) => {
    const part = alternative.trim();
    if (/^(\^|~|=)?20(\.|$|\s)/.test(part) || part === '*' || part === '') return true;
    const floor = /^>=?\s*v?(\d+)/.exec(part);
    const ceiling = /<(=?)\s*v?(\d+)/.exec(part);
    const below = !ceiling || (ceiling[1] ? Number(ceiling[2]) >= 20 : Number(ceiling[2]) > 20);
    return Boolean(floor && Number(floor[1]) <= 20 && below);
  });
}

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

test('the range check reads engines as npm does for the ranges in our tree', () => {
  for (const range of [
    '>=20.15',
    '^20.19.0 || ^22.13.0 || >=24',
    '18 || 20 || >=22',
    '>=22.12.0 || >=20.19.0 <21.0.0',
    '>=18',
  ])
    assert.ok(allowsNode20(range), range);
  for (const range of ['>=22', '^22.13.0 || >=24', '>=18 <20']) assert.ok(!allowsNode20(range), range);
});

test('only cookie@2 and content-disposition@3 leave Node 20 out, and both import nothing', () => {
  const excluding = installedPackages(nodeModules).filter((pkg) => pkg.node && !allowsNode20(pkg.node));
  assert.deepEqual([...new Set(excluding.map((pkg) => `${pkg.name}@${pkg.version.split('.')[0]}`))].sort(), [
    'content-disposition@3',
    'cookie@2',
  ]);
  for (const pkg of excluding) {
    const code = readFileSync(join(pkg.dir, 'dist', 'index.js'), 'utf8');
    assert.doesNotMatch(code, /\brequire\(|^\s*import\b|\bimport\(/m, `${pkg.name} imports something`);
  }
});
