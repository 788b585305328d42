// Runs once before the test files (`npm test`'s pretest, through tsx): migrates the template every
// test database is copied from (a dump of a PGlite data directory, or a template database on the
// Postgres server of DATABASE_URL), and unpacks the lockfile's Chromium, so that test files
// starting at the same moment find both ready instead of each making its own; and bundles the test
// files that `npm test` then runs (helpers/test-bundles.ts). The migrations run here, from source:
// the bundled test files do not load them.
import { readdir } from 'node:fs/promises';
import { chromiumExecutable } from './helpers/browser.js';
import { pgliteTemplate, postgresTemplate, serverUrl } from './helpers/database.js';
import { bundleTests } from './helpers/test-bundles.js';

const testFiles = (await readdir(new URL('./', import.meta.url), { recursive: true }))
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => new URL(file, import.meta.url).pathname);

// The PGlite template in the Postgres pass too: tests of processes that open a PGlite directory start
// them on a copy of it (pgliteDirectoryFromTemplate), in both passes.
await Promise.all([
  pgliteTemplate(),
  ...(serverUrl ? [postgresTemplate(serverUrl)] : []),
  chromiumExecutable(),
  bundleTests(testFiles),
]);
