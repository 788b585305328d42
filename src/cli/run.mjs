// `npm start`, `npm run migrate`, `npm run admin -- ...`: builds dist/ if it is missing or stale
// (see build.mjs), then runs the compiled entry point in this same process, with the arguments after
// its name: `node src/cli/run.mjs admin rotate-key ada-7`.
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './build.mjs';

const entries = {
  server: 'dist/server.bundle.js',
  migrate: 'dist/src/cli/migrate.js',
  admin: 'dist/src/cli/admin.js',
};
const [name, ...args] = process.argv.slice(2);
const entry = entries[name];
if (!entry) {
  console.error(`usage: node src/cli/run.mjs <${Object.keys(entries).join('|')}> [arguments]`);
  process.exit(2);
}
await ensureBuilt();
const target = fileURLToPath(new URL(`../../${entry}`, import.meta.url));
// The entry point sees itself as the program, with its own arguments, as if run directly.
process.argv = [process.argv[0], target, ...args];
await import(target);
