// Runs once before the test files (`npm test`'s pretest): migrates the template every test
// database is copied from (a dump of a PGlite data directory, or a template database on the
// Postgres server of DATABASE_URL), and unpacks the lockfile's Chromium, so that test files
// starting at the same moment find both ready instead of each making its own.
import { chromiumExecutable } from './helpers/browser.js';
import { pgliteTemplate, postgresTemplate, serverUrl } from './helpers/database.js';

await Promise.all([serverUrl ? postgresTemplate(serverUrl) : pgliteTemplate(), chromiumExecutable()]);
