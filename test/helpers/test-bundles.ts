// The test files as `npm test` runs them: each bundled with what it imports from the repository
// into one JavaScript module under .test-bundles/ (node_modules stay outside), so that a test process
// loads one file instead of a TypeScript loader and a few hundred modules through it: about a second
// of CPU less per file, and a third less for the whole suite on a two-core machine. Every module keeps
// its own import.meta.url (rewritten to its source file's), so paths relative to a module, and "am I
// the program" checks, mean what they mean when run from source. One file runs from source just as
// well: `node --import tsx --test test/feed/createPost.test.ts`.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const testBundleDir = `${root}.test-bundles`;

const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\.(ts|tsx|mts)$/ }, async ({ path }) => ({
      contents: (await readFile(path, 'utf8')).replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(path).href),
      ),
      loader: path.endsWith('.tsx') ? 'tsx' : 'ts',
    }));
  },
};

/**
 * The files that take longest (15-40 s each on a loaded two-core machine, measured at the end of
 * issue 43), started first: three run at a time, and one of them started last kept the suite
 * running on its own for half a minute. The rest follow in name order. Only the order changes:
 * a file missing here still runs, a name here that no longer exists is skipped.
 */
const longestFirst = [
  'contract/fuzz',
  // Postgres pass only (skipped at once on PGlite): two processes, a replica, a black hole.
  'webhooks/multi-instance',
  'web/readable-pages',
  'cli/admin',
  'analytics/consistency',
  'skills/every-sentence-holds',
  'webhooks/deliveries',
  'clients/package',
  'platform/server',
  'docs/swagger-ui',
  'bench/seed',
  'idempotency/idempotent-retries',
  'web/browser',
  'platform/signals',
  'feed/voteOnPost',
  'feed/getFeed',
  'cli/migrate',
  'contract/published-skill',
  'feed/streamFeed',
  'demo/runDemo',
  'examples/stream-listener',
  'contract/hostile-input',
  'platform/db/read-routing',
  'platform/admission/rate-limit-exactness',
  'faults/network-black-hole',
];

/** Where `npm test` reads the bundles to run, in the order to start them. */
export const testOrderFile = `${testBundleDir}/order.txt`;

/**
 * Bundles every test/**\/*.test.ts into .test-bundles/ (same folders), replacing what was there,
 * and lists the bundles in the order to start them (testOrderFile).
 */
export async function bundleTests(entryPoints: string[]): Promise<void> {
  await rm(testBundleDir, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: testBundleDir,
    outbase: `${root}test`,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [ownImportMetaUrl],
  });
  const bundles = entryPoints
    .map((entry) => entry.slice(`${root}test/`.length).replace(/\.test\.tsx?$/, ''))
    .sort();
  const rank = (name: string) => {
    const at = longestFirst.indexOf(name);
    return at === -1 ? longestFirst.length : at;
  };
  const ordered = bundles.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  await writeFile(testOrderFile, ordered.map((name) => `.test-bundles/${name}.test.mjs`).join('\n') + '\n');
}
