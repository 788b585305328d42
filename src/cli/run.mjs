// `npm start`, `npm run migrate`, `npm run admin -- ...`, `npm run demo`: builds dist/ if it is missing or stale
// (see build.mjs), then runs the compiled entry point in this same process, with the arguments after
// its name: `node src/cli/run.mjs admin rotate-key ada-7`.
//
// SIGTERM and SIGINT are caught by this module's first statement, so that no signal finds the server
// without a handler (Node's default is to die of it, which npm then repeats as its own end): what
// this module needs is imported after that (a static import would be loaded first), during a build
// the build stops and the process exits 0; once the server's module is loaded its own handlers stop
// it (src/server.ts), and a signal that came while it was loading is sent again to them. The
// command-line tools keep Node's default from the moment they are loaded: a signal stops them where
// they are, as it stops any command.
let pending;
const building = new AbortController();
const early = (signal) => {
  pending ??= signal;
  building.abort();
};
process.on('SIGTERM', early);
process.on('SIGINT', early);

const { fileURLToPath } = await import('node:url');
const { ensureBuilt } = await import('./build.mjs');

const entries = {
  server: { path: 'dist/server.bundle.js', handlesSignals: true },
  migrate: { path: 'dist/src/cli/migrate.js', handlesSignals: false },
  admin: { path: 'dist/src/cli/admin.js', handlesSignals: false },
  demo: { path: 'dist/src/cli/demo.js', handlesSignals: false },
};
const [name, ...args] = process.argv.slice(2);
const entry = entries[name];
if (!entry) {
  console.error(`usage: node src/cli/run.mjs <${Object.keys(entries).join('|')}> [arguments]`);
  process.exit(2);
}
try {
  await ensureBuilt({ signal: building.signal });
} catch (error) {
  if (!pending) throw error;
}
// Stopped before anything started: nothing to finish.
if (pending) process.exit(0);
const target = fileURLToPath(new URL(`../../${entry.path}`, import.meta.url));
// The entry point sees itself as the program, with its own arguments, as if run directly.
process.argv = [process.argv[0], target, ...args];
const handOver = () => {
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
  if (pending) process.kill(process.pid, pending);
};
// A tool runs to its end inside its import: its signals are Node's own from the start.
if (!entry.handlesSignals) handOver();
await import(target);
// The server's module installed its handlers as it was evaluated.
if (entry.handlesSignals) handOver();
