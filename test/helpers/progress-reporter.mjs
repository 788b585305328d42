// `npm test`'s progress, for the person watching it: once at the start, how many test files there
// are and about how long they take; then after each file, how many of all are done, how long the
// run has taken, and a failing file by its name as soon as it fails. Node's spec reporter prints
// every test beside it on stdout; this one writes to stderr (package.json's `test` script), so the
// progress shows between the tests' own lines and survives a redirect of stdout.
import { readFileSync, writeFileSync } from 'node:fs';
import { measuredDurationsFile } from './run-order.mjs';

/** What a quiet two-core machine takes for the whole suite (docs/testing.md keeps the figure). */
const expectedMinutes = '4';

const minutesAndSeconds = (ms) => {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
};

/**
 * The test file an event ends, if it ends one: every file runs in a describe of its own, at
 * nesting 0, named after the file (test/helpers/test-bundles.ts); a process's own end is no file's.
 */
function fileEnded({ type, data }) {
  if (type !== 'test:complete' || data.nesting !== 0) return undefined;
  return /^test\/.+\.test\.ts$/.test(data.name) ? data.name : undefined;
}

/**
 * The bundle whose process failed beyond its files' tests (a crash, a signal, an exit code), if the
 * event says so: Node reports it as a failure at nesting 0 named after the bundle, not after a file.
 */
function processFailed({ type, data }) {
  if (type !== 'test:fail' || data.nesting !== 0) return undefined;
  return /^test\/.+\.test\.ts$/.test(data.name) ? undefined : data.name;
}

export default async function* progress(source) {
  const files = readFileSync('.test-bundles/test-files.txt', 'utf8').split('\n').filter(Boolean).length;
  const started = Date.now();
  let done = 0;
  const failed = [];
  /** Bundles whose process failed besides (or after) their files' tests: a crash, say. */
  const crashedBundles = [];
  /** Each file's duration in this run, for `npm run test:durations` to keep (test/durations.json). */
  const durations = {};
  yield `npm test: ${files} test files, three at a time: about ${expectedMinutes} minutes on a quiet two-core machine, longer on a busy one.\n`;
  for await (const event of source) {
    const crashed = processFailed(event);
    if (crashed) {
      crashedBundles.push(crashed);
      yield `── FAILED: the process of ${crashed} (a crash or exit code after its files; its errors are above)\n`;
    }
    const file = fileEnded(event);
    if (!file) continue;
    done++;
    const elapsed = Date.now() - started;
    if (!event.data.details.passed) failed.push(file);
    durations[file] = Math.round(event.data.details.duration_ms);
    const took = minutesAndSeconds(event.data.details.duration_ms);
    yield `── ${done} of ${files} test files done, ${minutesAndSeconds(elapsed)} in (${
      event.data.details.passed ? `${file}: ${took}` : `FAILED: ${file}, after ${took}`
    })\n`;
  }
  // Only a whole run that passed measures what the run order is planned by.
  const passed = failed.length === 0 && crashedBundles.length === 0;
  if (passed && done === files) writeFileSync(measuredDurationsFile(), `${JSON.stringify(durations)}\n`);
  if (passed)
    yield `npm test: all ${files} test files passed in ${minutesAndSeconds(Date.now() - started)}.\n`;
  if (failed.length > 0)
    yield `npm test: ${failed.length} of ${files} test files failed: ${failed.join(', ')} (their errors are above).\n`;
  if (crashedBundles.length > 0)
    yield `npm test: the process of ${crashedBundles.join(', ')} failed besides its files' tests (its errors are above).\n`;
}
