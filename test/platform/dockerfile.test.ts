// The Dockerfile runs the production path exactly as .ci/production-check does (no registry is
// reachable in CI, so the image is not built there: this holds the two files to the same steps).
// The npm commands are read from both files, in order, flags that only quiet npm down left out, and
// compared: a step added, removed, changed or moved in either file alone fails here. Also checked:
// the image runs as a non-root user, reports its health on /readyz, and is built from the tree
// production-check copies (.dockerignore leaves out at least what .gitignore does).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** What production-check and this test both take to be the production path (docs/deploy.md). */
const productionPath = ['npm ci', 'npm run build', 'npm prune --omit=dev', 'npm run migrate', 'npm start'];

/** Flags that change what npm prints, not what it does. */
const quietFlags = new Set(['--silent', '-s', '--quiet', '-q', '--no-audit', '--no-fund', '--no-progress']);

/** Lines with their backslash continuations joined; comment lines dropped (Dockerfile and shell alike). */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const continued = /\\\s*$/.test(raw);
    pending += `${raw.replace(/\\\s*$/, '')} `;
    if (!continued) {
      if (pending.trim()) lines.push(pending.trim().replace(/\s+/g, ' '));
      pending = '';
    }
  }
  if (pending.trim()) lines.push(pending.trim().replace(/\s+/g, ' '));
  return lines;
}

/** The npm commands of a shell command line, in order: `npm ci --silent && npm run build > log 2>&1 &`. */
function npmCommands(shell: string): string[] {
  return (
    shell
      // Redirections: `> file`, `2>&1`, `>> file`.
      .replace(/\s\d*>>?\s*&?\S+/g, ' ')
      .split(/&&|\|\||[;&|]/)
      .map((segment) => segment.trim().split(/\s+/))
      .map((words) => {
        // `exec npm start`, `NAME=value npm ...`
        while (words[0] === 'exec' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) words.shift();
        return words;
      })
      .filter((words) => words[0] === 'npm')
      .map(normalise)
  );
}

function normalise(words: string[]): string {
  const kept: string[] = [];
  for (const word of words.map((w) => w.replace(/^(['"])(.*)\1$/, '$2'))) {
    if (word.startsWith('#')) break;
    if (quietFlags.has(word) || /^--loglevel=/.test(word)) continue;
    kept.push(word);
  }
  // `npm run start` is `npm start`.
  if (kept[1] === 'run' && kept[2] === 'start') kept.splice(1, 1);
  return kept.join(' ');
}

interface Instruction {
  keyword: string;
  argument: string;
}

/** The Dockerfile's instructions, split into its stages (each starting at a FROM). */
function dockerfileStages(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const line of logicalLines(text)) {
    const [, keyword = '', argument = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), argument };
    if (instruction.keyword === 'FROM') stages.push([]);
    assert.ok(stages.length > 0, `${keyword} before the first FROM`);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

/** A RUN or CMD argument as the shell command line it runs (exec form included). */
function shellOf(argument: string): string {
  const withoutFlags = argument.replace(/^(--\S+\s+)+/, '');
  if (!withoutFlags.startsWith('[')) return withoutFlags;
  const words = JSON.parse(withoutFlags) as string[];
  if (['sh', '/bin/sh', 'bash', '/bin/bash'].includes(words[0]!) && words[1] === '-c') return words[2]!;
  return words.join(' ');
}

const stages = dockerfileStages(read('Dockerfile'));
const image = stages.at(-1)!;
const all = stages.flat();
const last = (keyword: string) => image.filter((instruction) => instruction.keyword === keyword).at(-1);

/** Name=value pairs of the final stage's ENV instructions (`ENV A=1 B=2`, or `ENV A 1`). */
function environment(): Map<string, string> {
  const values = new Map<string, string>();
  for (const { argument } of image.filter((instruction) => instruction.keyword === 'ENV')) {
    if (!argument.includes('=')) {
      const [name = '', ...value] = argument.split(' ');
      values.set(name, value.join(' '));
      continue;
    }
    for (const [, name = '', value = ''] of argument.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g))
      values.set(name, value.replace(/^"(.*)"$/, '$1'));
  }
  return values;
}

/** production-check's npm commands up to `npm start`: what comes after it checks the running server. */
function productionCheckSteps(): string[] {
  const commands = logicalLines(read('.ci/production-check')).flatMap(npmCommands);
  const start = commands.indexOf('npm start');
  assert.ok(start >= 0, `no npm start in .ci/production-check: ${commands.join(', ')}`);
  return commands.slice(0, start + 1);
}

/** The Dockerfile's npm commands: its RUN lines in order (the build), then the final CMD (the run). */
function dockerfileSteps(): string[] {
  const cmd = last('CMD');
  assert.ok(cmd, 'the image has no CMD');
  return [
    ...all
      .filter(({ keyword }) => keyword === 'RUN')
      .flatMap(({ argument }) => npmCommands(shellOf(argument))),
    ...npmCommands(shellOf(cmd.argument)),
  ];
}

describe('Dockerfile', () => {
  test('the command reader understands both files', () => {
    assert.deepEqual(npmCommands('npm ci --no-audit --no-fund --silent'), ['npm ci']);
    assert.deepEqual(npmCommands('npm start --silent > server.log 2>&1 &'), ['npm start']);
    assert.deepEqual(npmCommands('npm run migrate && exec npm run start -s'), [
      'npm run migrate',
      'npm start',
    ]);
    assert.deepEqual(npmCommands('npm prune --omit=dev --no-audit; echo done | npm x'), [
      'npm prune --omit=dev',
      'npm x',
    ]);
    assert.equal(
      shellOf('["sh", "-c", "npm run migrate && exec npm start"]'),
      'npm run migrate && exec npm start',
    );
    assert.equal(shellOf('["npm", "start"]'), 'npm start');
    assert.equal(shellOf('--mount=type=cache,target=/root/.npm npm ci'), 'npm ci');
  });

  test('.ci/production-check runs the production path', () => {
    // Pinned as well, so that a reader that found nothing in either file cannot pass the next test.
    assert.deepEqual(productionCheckSteps(), productionPath);
  });

  test('runs the npm commands .ci/production-check runs, in the same order', () => {
    assert.deepEqual(dockerfileSteps(), productionCheckSteps());
  });

  test('the command the image runs is not wrapped by an ENTRYPOINT of its own', () => {
    // The node image's entrypoint runs the CMD as given; another one would change what runs.
    assert.deepEqual(
      all.filter(({ keyword }) => keyword === 'ENTRYPOINT'),
      [],
    );
  });

  test('sets NODE_ENV=production for the server, after the build (npm ci would skip dev dependencies)', () => {
    assert.equal(environment().get('NODE_ENV'), 'production');
    const firstProductionEnv = all.findIndex(
      ({ keyword, argument }) => keyword === 'ENV' && /\bNODE_ENV[= ]/.test(argument),
    );
    const build = all.findIndex(({ keyword, argument }) => keyword === 'RUN' && /\bnpm ci\b/.test(argument));
    assert.ok(build >= 0 && firstProductionEnv > build, 'ENV NODE_ENV comes after the RUN with npm ci');
  });

  test('runs as a non-root user', () => {
    const user = last('USER')?.argument.split(':')[0];
    assert.ok(user, 'the image has no USER: it would run as root');
    assert.ok(!['root', '0'].includes(user), `USER ${user}`);
  });

  test('has a HEALTHCHECK on /readyz, on the port it listens on', () => {
    const healthcheck = last('HEALTHCHECK');
    assert.ok(healthcheck, 'the image has no HEALTHCHECK');
    assert.doesNotMatch(healthcheck.argument, /^NONE\b/i);
    assert.match(healthcheck.argument, /\/readyz\b/);
    const port = environment().get('PORT');
    assert.ok(port, 'ENV PORT');
    assert.match(last('EXPOSE')?.argument ?? '', new RegExp(`\\b${port}\\b`), `EXPOSE ${port}`);
  });

  test("keeps PGlite's data directory on a volume", () => {
    const directory = environment().get('PGLITE_DIR');
    assert.ok(directory, 'ENV PGLITE_DIR');
    const volumes = image
      .filter(({ keyword }) => keyword === 'VOLUME')
      .flatMap(({ argument }) =>
        argument.startsWith('[') ? (JSON.parse(argument) as string[]) : argument.split(' '),
      );
    assert.ok(volumes.includes(directory), `VOLUME ${directory} (volumes: ${volumes.join(', ')})`);
  });

  test('is built from the tree production-check copies: .dockerignore leaves out what .gitignore does', () => {
    const patterns = (text: string) =>
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#') && !line.startsWith('!'))
        .map((line) => line.replace(/^\/|\/$/g, ''));
    const ignored = patterns(read('.dockerignore'));
    const covered = (pattern: string) =>
      ignored.some(
        (entry) =>
          entry === pattern ||
          entry === `**/${pattern}` ||
          pattern.startsWith(`${entry}/`) ||
          pattern.startsWith(`${entry.replace(/^\*\*\//, '')}/`),
      );
    assert.deepEqual(
      patterns(read('.gitignore')).filter((pattern) => !covered(pattern)),
      [],
    );
  });
});
