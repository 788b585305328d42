// The order `npm test` starts its test files in, planned from how long each took when last
// measured (test/durations.json, one list per pass: PGlite's and the Postgres server's), never from
// a hand-kept list: three processes run at a time, so the longest files start first, each in a
// process of its own, and every other file shares one with a few more, the longer groups first.
// A whole run that passes writes what it measured (.test-bundles/durations-<pass>.json, by
// ./progress-reporter.mjs); `npm run test:durations` keeps it in test/durations.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The committed durations, in milliseconds by test file, of each pass. */
export const durationsFile = `${root}test/durations.json`;

/** Which pass this is: on the Postgres server (DATABASE_URL set) or on PGlite. */
export const currentPass = () => (process.env.DATABASE_URL ? 'postgres' : 'pglite');

/** Where a whole passing run of this pass leaves what it measured. */
export const measuredDurationsFile = (pass = currentPass()) => `${root}.test-bundles/durations-${pass}.json`;

/** A file that took this long or more runs in a process of its own (three run at a time on two cores). */
export const aloneFromMs = 10_000;

/** How many of the other files share one process, one after the other. */
export const filesPerProcess = 7;

/** The committed durations of `pass`, by test file (`test/feed/createPost.test.ts`). */
export function recordedDurations(pass = currentPass()) {
  return JSON.parse(readFileSync(durationsFile, 'utf8'))[pass] ?? {};
}

/**
 * The processes to start, in order, each the test files it runs (`test/<area>/<operationId>.test.ts`): the files of
 * `aloneFromMs` or more alone, longest first, then the rest, longest first, `filesPerProcess` to a
 * process. A file not measured yet counts as short; a measured file that no longer exists is left out.
 */
export function planRuns(files, durations) {
  const took = (file) => durations[file] ?? 0;
  const longestFirst = [...files].sort((a, b) => took(b) - took(a) || a.localeCompare(b));
  const alone = longestFirst.filter((file) => took(file) >= aloneFromMs);
  const shared = longestFirst.filter((file) => took(file) < aloneFromMs);
  const runs = alone.map((file) => [file]);
  for (let at = 0; at < shared.length; at += filesPerProcess)
    runs.push(shared.slice(at, at + filesPerProcess));
  return runs;
}
