// The test files as `npm test` runs them: each bundled with what it imports from the repository
// into one JavaScript module under .test-bundles/ (node_modules stay outside), so that a test process
// loads one file instead of a TypeScript loader and a few hundred modules through it: about a second
// of CPU less per file, and a third less for the whole suite on a two-core machine. Every module keeps
// its own import.meta.url (rewritten to its source file's), so paths relative to a module, and "am I
// the program" checks, mean what they mean when run from source. One file runs from source just as
// well: `node --import tsx --test test/feed/createPost.test.ts`.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { idlePglitesKey } from './database.js';

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
 * The files that run in a process of their own, the longest first (measured with `npm test`'s
 * progress lines, 15 s or more each with three at a time on a two-core machine; the Postgres pass's
 * own long files among them, which PGlite skips at once): three run at a time, and a long one
 * started last would keep the suite running on its own. Every other file shares a process with a
 * few more (below). Only the order changes: a file missing here still runs, a name here that no
 * longer exists is left out.
 */
const alone = [
  'platform/web/readable-pages',
  'cli/admin',
  'webhooks/multi-instance',
  'platform/server',
  'contract/fuzz',
  'skills/every-sentence-holds',
  'skills/getSkill',
  'clients/package',
  'faults/network-black-hole',
  'faults/postgres-restart',
  'analytics/consistency',
  'feed/streamFeed',
  'platform/http/swagger-ui',
  'platform/signals',
  'cli/migrate',
  'platform/web/browser',
  'webhooks/deliveries',
  'platform/db/read-routing',
  'bench/seed',
  'platform/db/definitions',
  'platform/admission/rate-limit-exactness',
  'platform/event-streams/across-instances',
];

/**
 * How many of the other files share one process, one after the other (each in a describe of its
 * own, named by its file, so its hooks and its database stay its own): a process costs its files
 * Node's start, the bundle's loading and PGlite's compilation once, not each time (about 3 s of CPU
 * a file on PGlite when every file had its own).
 */
const filesPerProcess = 7;

/** The bundles' folder's file listing every test file by its source path, for the progress lines. */
export const testFilesFile = `${testBundleDir}/test-files.txt`;

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
  const own = alone.filter((name) => bundles.includes(name));
  const shared = bundles.filter((name) => !own.includes(name));
  const runs: string[][] = own.map((name) => [name]);
  for (let at = 0; at < shared.length; at += filesPerProcess)
    runs.push(shared.slice(at, at + filesPerProcess));
  // Each process a module that runs its files in turn, each in a describe of its own named by its
  // file (its hooks inside it). Named by their place in the order: Node's runner starts the files
  // it is given in the order of their names, whatever order they are given in.
  await mkdir(`${testBundleDir}/runs`, { recursive: true });
  const runFiles = await Promise.all(
    runs.map(async (members, index) => {
      const file = `${testBundleDir}/runs/${String(index + 1).padStart(3, '0')}.test.mjs`;
      await writeFile(
        file,
        [
          `// ${members.length === 1 ? 'A test file' : `${members.length} test files`} in a process of its own (test/helpers/test-bundles.ts).`,
          `import { after, describe } from 'node:test';`,
          `// Where its files hand on their PGlite instances (test/helpers/database.ts), closed once all are done.`,
          `const idle = (globalThis[Symbol.for(${JSON.stringify(idlePglitesKey.description)})] = []);`,
          ...members.map(
            (name) =>
              `describe(${JSON.stringify(`test/${name}.test.ts`)}, async () => { await import(${JSON.stringify(`../${name}.test.mjs`)}); });`,
          ),
          `after(async () => { for (const { pglite } of idle) await pglite.close(); });`,
          '',
        ].join('\n'),
      );
      return file.slice(root.length);
    }),
  );
  await writeFile(testOrderFile, runFiles.join('\n') + '\n');
  await writeFile(testFilesFile, bundles.map((name) => `test/${name}.test.ts`).join('\n') + '\n');
}
