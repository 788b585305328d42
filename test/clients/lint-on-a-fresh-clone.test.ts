// A contributor's first `npm run lint` after `npm ci` on a fresh clone passes: the client's sources
// import clients/typescript/src/generated/, which git does not hold (it is copied from generated/ and openapi.yaml),
// so the lint script writes it first. Here a copy of the client as a clone has it (no clients/typescript/src/generated)
// type-checks once the lint script's first step has run in it.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
const clone = mkdtempSync(join(tmpdir(), 'bp-fresh-clone-'));
after(() => rmSync(clone, { recursive: true, force: true }));

test('the lint script writes what the client sources import before it lints them', () => {
  const tracked = execFileSync(
    'git',
    ['ls-files', 'clients/typescript', 'generated', 'openapi.yaml', 'package.json'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((file) => file !== '' && !file.startsWith('clients/typescript/dist/'));
  assert.ok(!tracked.some((file) => file.startsWith('clients/typescript/src/generated/')), 'not in git');
  for (const file of tracked) {
    mkdirSync(join(clone, file, '..'), { recursive: true });
    cpSync(join(root, file), join(clone, file));
  }
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
  const typeCheck = () =>
    spawnSync(process.execPath, [tsc, '--noEmit', '-p', 'clients/typescript/tsconfig.json'], {
      cwd: clone,
      encoding: 'utf8',
    });

  // As a clone has it: the sources import ./generated/, which is not there.
  assert.match(
    readFileSync(join(clone, 'clients/typescript/src/index.ts'), 'utf8'),
    /from '\.\/generated\/openapi\.js'/,
  );
  assert.ok(!existsSync(join(clone, 'clients/typescript/src/generated')));

  const scripts = (
    JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  assert.ok(scripts.prelint, 'npm run lint runs a step before eslint');
  execFileSync('sh', ['-c', scripts.prelint], { cwd: clone, stdio: 'pipe' });
  const afterwards = typeCheck();
  assert.equal(afterwards.status, 0, afterwards.stdout);
});
