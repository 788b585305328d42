// `npm test`'s first minute, said as it goes (its pretest): the server built into dist/ (the tests
// that start `npm start` run it), the typed client checked against the spec, then test/setup.ts
// (the template database every test copies, the browser unpacked, the test files bundled). Each
// step says what it does before it starts and how long it took; a failing step stops the run.
import { spawnSync } from 'node:child_process';

const steps = [
  ['building the server into dist/, which the tests of `npm start` run', ['src/cli/build.mjs']],
  [
    'checking the typed client (clients/typescript) against openapi.yaml',
    ['clients/typescript/build.mjs', '--check'],
  ],
  [
    'migrating the template database every test copies, unpacking the browser, bundling the test files',
    ['--import', 'tsx', 'test/setup.ts'],
  ],
];

for (const [index, [what, args]] of steps.entries()) {
  const started = Date.now();
  process.stderr.write(`npm test, getting ready (${index + 1} of ${steps.length}): ${what}...\n`);
  const { status, signal } = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (status !== 0) {
    process.stderr.write(`npm test: getting ready failed (${signal ?? `exit code ${status}`}): ${what}.\n`);
    process.exit(status ?? 1);
  }
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
