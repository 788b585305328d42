// Pointers that cannot rot (STYLE.md 22): what a comment or a doc names, a reader can open. A path
// of this repository (src/feed/sql/create_post.sql, ./links.test.ts, docs/deploy.md) must be a file or
// folder that exists, and "the follows migration" a migration's name, in every source file's
// comments and in every Markdown file. (Markdown links are test/docs/links.test.ts's.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && existsSync(join(root, file)));

/** The source files whose comments are read, and the Markdown files (bench's results are history). */
const sources = tracked.filter((file) =>
  /^(src|test|bench|clients|\.ci)\/.*\.(ts|tsx|mjs|sql)$|^\.ci\/[^.]+$/.test(file),
);
const markdown = tracked.filter((file) => file.endsWith('.md') && !file.startsWith('bench/results/'));

const migrations = new Set(
  readdirSync(join(root, 'migrations'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.replace(/^[\dT:-]+_/, '').replace(/\.ts$/, '')),
);

/** A source file's comments: `//` lines, block comments and SQL's `--` lines. */
function commentsOf(file: string, text: string): string {
  const parts = file.endsWith('.sql')
    ? [...text.matchAll(/--(.*)$/gm)].map((match) => match[1]!)
    : [
        ...text.matchAll(/(?:^|[^:'"`\\])\/\/(.*)$/gm),
        ...text.matchAll(/\/\*([\s\S]*?)\*\//g),
        ...text.matchAll(/^#(.*)$/gm),
      ].map((match) => match[1]!);
  return parts.join('\n');
}

const repositoryPath =
  /(?<![\w/.-])((?:src|docs|test|migrations|bench|clients|deploy|examples|generated|\.ci)\/[\w./-]*[\w/])/g;
const relativePath = /(?<![\w/.-])(\.\.?\/[\w./-]*\.(?:ts|tsx|mjs|sql|md))\b/g;
const migrationName = /\bthe ([a-z0-9]+(?:-[a-z0-9]+)*) migration\b/g;
/** Words that say which migration without naming one. */
const notAName = new Set(['latest', 'last', 'first', 'next', 'new', 'previous', 'same', 'one']);

function brokenPointers(file: string, text: string): string[] {
  const broken: string[] = [];
  for (const [, path] of text.matchAll(repositoryPath)) {
    // A path's last word may be a glob or a placeholder: only what names a file or folder is held.
    if (/[*{<]/.test(path!) || /\.(js)$/.test(path!)) continue;
    // What a build writes (a client's src/generated/) is in no clone; the committed generated/ is.
    if (/.\/generated\b/.test(path!)) continue;
    const named = path!.replace(/\.$/, '');
    // From the repository's root, or from the file's own folder (a client's src/, a README's).
    if (!existsSync(join(root, named)) && !existsSync(join(root, dirname(file), named)))
      broken.push(`${file}: ${path}`);
  }
  for (const [, path] of text.matchAll(relativePath))
    if (!existsSync(join(root, dirname(file), path!))) broken.push(`${file}: ${path}`);
  // A source file that sends its reader to "the README" means its folder's, or the folder above's.
  if (!file.endsWith('.md') && /(?<![\w/.-])README\.md/.test(text)) {
    const folder = dirname(file);
    if (![folder, dirname(folder)].some((dir) => existsSync(join(root, dir, 'README.md'))))
      broken.push(`${file}: README.md`);
  }
  for (const [, name] of text.matchAll(migrationName))
    if (!migrations.has(name!) && !notAName.has(name!)) broken.push(`${file}: the ${name} migration`);
  return broken;
}

test('the files are found', () => {
  assert.ok(sources.includes('src/app.ts') && sources.includes('src/feed/sql/create_post.sql'));
  assert.ok(markdown.includes('README.md') && markdown.includes('docs/architecture.md'));
});

test('every path and migration a comment names exists', () => {
  const broken = sources.flatMap((file) =>
    brokenPointers(file, commentsOf(file, readFileSync(join(root, file), 'utf8'))),
  );
  assert.deepEqual(broken, []);
});

test('every path and migration a Markdown file names exists', () => {
  const broken = markdown.flatMap((file) => brokenPointers(file, readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(broken, []);
});

test('a pointer that does not exist is found', () => {
  assert.deepEqual(
    brokenPointers(
      'src/feed/service.ts',
      'see src/feed/gone.ts, ./nowhere.ts and the removed-long-ago migration',
    ),
    [
      'src/feed/service.ts: src/feed/gone.ts',
      'src/feed/service.ts: ./nowhere.ts',
      'src/feed/service.ts: the removed-long-ago migration',
    ],
  );
  assert.deepEqual(
    brokenPointers('src/feed/service.ts', 'src/feed/sql/create_post.sql, the follows migration'),
    [],
  );
});
