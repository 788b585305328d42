// `npm run build`: compiles the server, its migrations and the generated types to dist/ (tsc with
// tsconfig.build.json), writes the spec beside them as dist/openapi.json (it parses in a
// millisecond where the YAML takes a tenth of a second of every start-up), and bundles the server
// into dist/server.bundle.js (esbuild), which `npm start` runs.
//
// ensureBuilt() (what `npm start`, `npm run migrate` and `npm run admin` do first, through run.mjs)
// builds only when dist/ is missing or older than a source, and otherwise returns at once: a fresh
// clone just works, and a built install starts without compiling. Plain JavaScript, so it runs
// before anything is built, and it loads TypeScript only to build: an install without dev
// dependencies (`npm prune --omit=dev` after a build) never needs it, and is told what to do if
// dist/ is stale.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
/** What dist/ is made from. */
const sources = ['src', 'migrations', 'generated', 'openapi.yaml', 'tsconfig.json', 'tsconfig.build.json'];

function newestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce(
    (newest, entry) => Math.max(newest, newestChange(join(path, entry))),
    stats.mtimeMs,
  );
}

function isStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return sources.some((source) => newestChange(join(root, source)) > built);
}

/**
 * Builds dist/ when it is missing or stale. `signal` stops a build under way (run.mjs aborts it on
 * SIGTERM): the compiler is stopped, the build stamp is not written, and the next start builds again.
 */
export async function ensureBuilt({ signal } = {}) {
  if (!isStale()) return;
  // On stderr, so that a tool's own output (npm run admin's key) stays alone on stdout.
  const first = !existsSync(stamp);
  console.error(
    `${first ? 'First start' : 'The sources changed'}: building dist/ (TypeScript, then one bundle). ` +
      'This takes 10 to 40 s, once; later starts listen in under a second.',
  );
  const started = performance.now();
  await build(signal);
  console.error(`Built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

/** Runs a command to its end; rejects if it fails, or stops it and rejects when `signal` aborts. */
async function run(command, args, signal) {
  signal?.throwIfAborted();
  const child = spawn(command, args, { stdio: 'inherit' });
  const stopChild = () => child.kill('SIGTERM');
  signal?.addEventListener('abort', stopChild, { once: true });
  try {
    const [code] = await once(child, 'exit');
    signal?.throwIfAborted();
    if (code !== 0) throw new Error(`${[command, ...args].join(' ')} failed (exit code ${code})`);
  } finally {
    signal?.removeEventListener('abort', stopChild);
  }
}

async function build(signal) {
  let tsc;
  try {
    tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  } catch {
    console.error(
      'dist/ is missing or older than the sources, and TypeScript is not installed to build it: run `npm ci && npm run build` (then `npm prune --omit=dev` if you like).',
    );
    process.exit(1);
  }
  await run(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], signal);
  const { parse } = await import('yaml');
  const spec = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  writeFileSync(join(root, 'dist', 'openapi.json'), JSON.stringify(spec));
  // What the server reads beside its compiled modules: the pages' stylesheet, the database's
  // definitions (src/platform/db/definitions.ts), the skill files' templates (src/skills/files.ts).
  for (const file of readdirSync(join(root, 'src'), { recursive: true })) {
    if (
      file === join('platform', 'web', 'style.css') ||
      /[\\/]sql[\\/][^\\/]+\.sql$/.test(file) ||
      /^skills[\\/]templates[\\/][^\\/]+\.md$/.test(file)
    ) {
      mkdirSync(dirname(join(root, 'dist', 'src', file)), { recursive: true });
      copyFileSync(join(root, 'src', file), join(root, 'dist', 'src', file));
    }
  }
  await bundleServer();
  signal?.throwIfAborted();
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

/**
 * dist/server.bundle.js: the compiled server and the packages it loads at start-up in one file, so
 * Node reads one module instead of hundreds, which is most of start-up (bench/results/latest.md).
 * Packages that read files of their own (PGlite's WebAssembly, Swagger UI's assets) or load only
 * on first use (openid-client, nodemailer, the MCP SDK) stay outside, in node_modules.
 */
async function bundleServer() {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'dist', 'src', 'server.js')],
    outfile: join(root, 'dist', 'server.bundle.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // Less to parse at every start; names are kept (Fastify and stack traces use them).
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    external: [
      '@electric-sql/pglite',
      '@fastify/swagger',
      '@fastify/swagger-ui',
      'openid-client',
      'nodemailer',
      '@modelcontextprotocol/sdk',
      'pg-native',
    ],
    plugins: [nodeOnlyPg, await precompiledEnvironmentValidator()],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
  });
}

/**
 * pg asks at load time whether it runs in a Cloudflare Worker, and on Node 20 (no `navigator`) it
 * finds out by constructing a fetch Response, which loads Node's whole fetch implementation: ~30 ms
 * of every start, for a server that only ever runs on Node. The bundle answers "no" instead. If a
 * pg release words the check differently the build fails here, rather than quietly keep the cost.
 */
const nodeOnlyPg = {
  name: 'node-only-pg',
  setup(build) {
    build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const probe = 'if (isCloudflareRuntime()) {';
      if (!source.includes(probe))
        throw new Error(`${path} no longer contains "${probe}": review nodeOnlyPg`);
      return { contents: source.replace(probe, 'if (false) {'), loader: 'js' };
    });
  },
};

/**
 * src/config/environment-validator.ts compiles the environment's validator with Ajv at every start (~40 ms);
 * in the bundle that module is the same validator, generated here by Ajv's standalone code from the
 * schema and options the source uses (test/platform/config.test.ts holds the two to one answer).
 */
async function precompiledEnvironmentValidator() {
  const { environmentSchema } = await import(join(root, 'dist', 'src', 'config.js'));
  const { environmentValidation } = await import(
    join(root, 'dist', 'src', 'config', 'environment-validator.js')
  );
  const { Ajv } = await import('ajv');
  const { default: standaloneCode } = await import('ajv/dist/standalone/index.js');
  const ajv = new Ajv({ ...environmentValidation, validateSchema: false, code: { source: true, esm: true } });
  const validator = standaloneCode(ajv, ajv.compile(environmentSchema));
  const contents = `${validator}
export const environmentValidation = ${JSON.stringify(environmentValidation)};
export function compileEnvironmentValidator() { return validate; }`;
  return {
    name: 'precompiled-environment-validator',
    setup(build) {
      build.onLoad({ filter: /[\\/]dist[\\/]src[\\/]config[\\/]environment-validator\.js$/ }, () => ({
        contents,
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await build();
