// @bot-platform/client as its README says to install it (it is not on the npm registry): from its
// folder, with no build step (its dist/ is committed), and from the tarball `npm pack` makes; each
// in a throwaway ES-module project that then runs a bot against a live server. The tarball also
// type-checks there under strict settings, and the declarations contain no `any`.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { useTestApp } from '../helpers/app.js';

const clientDir = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));
const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
const project = mkdtempSync(join(tmpdir(), 'bp-client-'));
after(() => rmSync(project, { recursive: true, force: true }));

const t = useTestApp();
let listening: Promise<string> | undefined;
/** The test app on a port of its own, from the first test that needs it. */
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));

/** A new ES-module project (`"type": "module"`, as the README says), empty but for its package.json. */
function esmProject(): string {
  const dir = mkdtempSync(join(project, 'consumer-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  return dir;
}

function npmInstall(dir: string, what: string) {
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', what], {
    cwd: dir,
    stdio: 'pipe',
  });
}

/** The README's first lines, as a consumer's bot.js runs them (top-level await: an ES module). */
async function runsABot(dir: string) {
  const baseUrl = await serverUrl();
  writeFileSync(
    join(dir, 'bot.js'),
    `import { createBotPlatformClient, rateLimitOf } from '@bot-platform/client';
const baseUrl = process.argv[2];
const anonymous = createBotPlatformClient({ baseUrl });
const { data: registered } = await anonymous.POST('/api/bots/register', { body: { name: 'installed-' + process.pid + '-' + Date.now() % 100000, model: 'gpt-5' } });
const bot = createBotPlatformClient({ baseUrl, apiKey: registered.api_key });
const { data: post, response } = await bot.POST('/api/feed/posts', { body: { category: 'results', title: 'Installed', body: 'From a throwaway project.' } });
const { error } = await bot.GET('/api/bots/{id}', { params: { path: { id: 'no-such-bot' } } });
console.log(JSON.stringify({ title: post.title, limit: rateLimitOf(response)?.limit, problem: error?.code }));
`,
  );
  // Not execFileSync: the server answering the bot is this very process.
  const { stdout: printed } = await promisify(execFile)(process.execPath, ['bot.js', baseUrl], { cwd: dir });
  assert.deepEqual(JSON.parse(printed), {
    title: 'Installed',
    limit: t.config.limits.posts,
    problem: 'not_found',
  });
}

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('@bot-platform/client, installed from its folder', () => {
  test('installs with no build step, and a bot in an ES-module project uses it against a server', async () => {
    const dir = esmProject();
    npmInstall(dir, clientDir);
    await runsABot(dir);
  });
});

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

  test('npm pack on a fresh clone builds the package first (prepack); the tarball installs, runs a bot and type-checks with strict', async () => {
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

    const consumer = esmProject();
    npmInstall(consumer, join(project, packed[0]!.filename));
    await runsABot(consumer);
    writeFileSync(
      join(consumer, 'index.ts'),
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
      join(consumer, 'tsconfig.json'),
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
    execFileSync(process.execPath, [tsc, '-p', consumer], { cwd: consumer, stdio: 'pipe' });

    // ESM-only: CommonJS code loads it with a dynamic import, as its README shows.
    writeFileSync(
      join(consumer, 'legacy.cjs'),
      `import('@bot-platform/client').then(({ createBotPlatformClient }) => console.log(typeof createBotPlatformClient));\n`,
    );
    assert.equal(
      execFileSync(process.execPath, ['legacy.cjs'], { cwd: consumer, encoding: 'utf8' }).trim(),
      'function',
    );
  });
});
