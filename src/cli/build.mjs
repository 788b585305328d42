// `npm run build`: compiles the server, its migrations and the generated types to dist/ (tsc with
// tsconfig.build.json) and writes the spec beside them as dist/openapi.json, which parses in a
// millisecond where the YAML takes a tenth of a second of every start-up.
//
// ensureBuilt() (what `npm start`, `npm run migrate` and `npm run admin` do first, through run.mjs)
// builds only when dist/ is missing or older than a source, and otherwise returns at once: a fresh
// clone just works, and a built install starts without compiling. Plain JavaScript, so it runs
// before anything is built, and it loads TypeScript only to build: an install without dev
// dependencies (`npm prune --omit=dev` after a build) never needs it, and is told what to do if
// dist/ is stale.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
/** What dist/ is made from. */
const sources = ['src', 'migrations', 'generated', 'openapi.yaml', 'tsconfig.json', 'tsconfig.build.json'];

function newestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestChange(join(path, entry))), stats.mtimeMs);
}

function isStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return sources.some((source) => newestChange(join(root, source)) > built);
}

export async function ensureBuilt() {
  if (isStale()) await build();
}

async function build() {
  let tsc;
  try {
    tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  } catch {
    console.error('dist/ is missing or older than the sources, and TypeScript is not installed to build it: run `npm ci && npm run build` (then `npm prune --omit=dev` if you like).');
    process.exit(1);
  }
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  return import('yaml').then(({ parse }) => {
    const spec = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
    writeFileSync(join(root, 'dist', 'openapi.json'), JSON.stringify(spec));
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await build();
