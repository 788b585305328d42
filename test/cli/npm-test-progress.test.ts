// npm test's progress lines (test/helpers/progress-reporter.mjs) on runs that pass, fail a test, or
// lose their process after every test passed: a crash must never read as "all passed".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const reporter = fileURLToPath(new URL('../helpers/progress-reporter.mjs', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'progress-'));

/** What the reporter prints for a bundle holding one file (its describe) with `body`, then `after`. */
function progressOf(name: string, body: string, after = '') {
  const bundle = join(folder, `${name}.test.mjs`);
  writeFileSync(
    bundle,
    `import { describe, test } from 'node:test';\n` +
      `describe('test/fake/${name}.test.ts', () => { test('one', () => { ${body} }); });\n${after}\n`,
  );
  // Without this test's own runner context, which would make the child report to it instead.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', `--test-reporter=${reporter}`, bundle], {
    encoding: 'utf8',
    env,
  });
  return { status: run.status, lines: run.stdout };
}

test('a run whose tests pass says so, and exits 0', () => {
  const { status, lines } = progressOf('passes', '');
  assert.equal(status, 0, lines);
  assert.match(lines, /test\/fake\/passes\.test\.ts: 0 s/);
  assert.match(lines, /npm test: all \d+ test files passed/);
});

test('a failing test names its file as failed', () => {
  const { status, lines } = progressOf('fails', "throw new Error('no');");
  assert.notEqual(status, 0);
  assert.match(lines, /FAILED: test\/fake\/fails\.test\.ts/);
  assert.doesNotMatch(lines, /passed/);
});

test('a process that crashes after its tests passed is a failure, named by its bundle', () => {
  const after = "setTimeout(() => process.kill(process.pid, 'SIGSEGV'), 50);";
  const { status, lines } = progressOf('crashes', '', after);
  assert.notEqual(status, 0);
  assert.match(lines, /the process of .*crashes\.test\.mjs failed/);
  assert.doesNotMatch(lines, /all \d+ test files passed/);
});
