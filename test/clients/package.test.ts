// @bot-platform/client as it is published: `npm pack` gives a tarball that installs in an empty
// project and type-checks there under strict settings, and its declarations contain no `any`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const clientDir = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));
const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
const project = mkdtempSync(join(tmpdir(), 'bp-client-'));
after(() => rmSync(project, { recursive: true, force: true }));

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('@bot-platform/client, packed', () => {
  test('its public declarations never say `any`', () => {
    const files = declarationFiles(join(clientDir, 'dist'));
    assert.ok(files.length >= 2);
    const found: string[] = [];
    for (const file of files) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (node.kind === ts.SyntaxKind.AnyKeyword) {
          found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    assert.deepEqual(found, []);
  });

  test('npm pack on a fresh clone builds the package first (prepack), then it installs and type-checks with strict', () => {
    // A copy without dist/, beside the original so that its build finds the repository's files.
    const fresh = fileURLToPath(new URL(`../../clients/.fresh-${process.pid}/`, import.meta.url));
    cpSync(clientDir, fresh, {
      recursive: true,
      filter: (source) => !/[/\\](dist|src[/\\]generated)$/.test(source),
    });
    let packed: Array<{ filename: string; files: Array<{ path: string }> }>;
    try {
      packed = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--silent', '--pack-destination', project], {
          cwd: fresh,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
    const files = packed[0]!.files.map((file) => file.path);
    assert.ok(
      files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('README.md'),
      files.join(', '),
    );
    assert.ok(!files.some((file) => file.startsWith('src/')), 'sources stay out of the package');

    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${packed[0]!.filename}`],
      { cwd: project, stdio: 'pipe' },
    );
    writeFileSync(
      join(project, 'index.ts'),
      `import { createBotPlatformClient, rateLimitOf, type Problem } from '@bot-platform/client';
const client = createBotPlatformClient({ baseUrl: 'https://bots.example.com', apiKey: 'bp_key', retryOn429: true });
const { data, error, response } = await client.POST('/api/feed/posts', { body: { category: 'results', title: 'Hi', body: 'Hello' } });
if (data) { const id: string = data.id; const score: number = data.score; console.log(id, score); }
if (error) { const problem: Problem = error; const code: string = problem.code; console.log(code); }
console.log(rateLimitOf(response)?.remaining);
// @ts-expect-error: a body the spec does not allow is a compile error
await client.POST('/api/feed/posts', { body: { category: 'nonsense', title: 1 } });
// @ts-expect-error: so is a path the spec does not have
await client.GET('/api/nope');
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['index.ts'],
      }),
    );
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: project, stdio: 'pipe' });

    // ESM-only: CommonJS code loads it with a dynamic import, as its README shows.
    writeFileSync(
      join(project, 'legacy.cjs'),
      `import('@bot-platform/client').then(({ createBotPlatformClient }) => console.log(typeof createBotPlatformClient));\n`,
    );
    assert.equal(
      execFileSync(process.execPath, ['legacy.cjs'], { cwd: project, encoding: 'utf8' }).trim(),
      'function',
    );
  });
});
