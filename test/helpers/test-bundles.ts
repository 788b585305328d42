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
import { planRuns, recordedDurations } from './run-order.mjs';

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
  // The order from the durations last measured (./run-order.mjs). Each process a module that runs
  // its files in turn, each in a describe of its own named by its file (its hooks inside it, its
  // database its own). Named by their place in the order: Node's runner starts the files it is
  // given in the order of their names, whatever order they are given in.
  const source = (name: string) => `test/${name}.test.ts`;
  const runs = planRuns(bundles.map(source), recordedDurations()).map((files) =>
    files.map((file) => file.slice('test/'.length, -'.test.ts'.length)),
  );
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
