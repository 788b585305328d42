// The README and the reference in docs/ (and every README beside the code) point at files and
// headings that exist: a moved file or a renamed heading breaks this test, not a reader's click.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every Markdown file of the repository, tracked or new (not ignored ones such as node_modules/). */
const markdownFiles = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((file) => file && existsSync(join(root, file)));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

/** Relative links of a Markdown text, outside code blocks and code spans. */
function linksIn(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test('the Markdown files are found (README.md, docs/, the code READMEs)', () => {
  for (const file of [
    'README.md',
    'docs/architecture.md',
    'docs/deploy.md',
    'src/platform/admission/README.md',
  ])
    assert.ok(markdownFiles.includes(file), file);
});

test('every relative link in a Markdown file resolves, its #anchor included', () => {
  const broken: string[] = [];
  for (const file of markdownFiles) {
    const path = join(root, file);
    for (const link of linksIn(readFileSync(path, 'utf8'))) {
      const [target = '', anchor] = link.split('#');
      const resolved = target === '' ? path : join(dirname(path), decodeURIComponent(target));
      if (!existsSync(resolved)) {
        broken.push(`${file}: ${link} (no ${relative(root, resolved)})`);
        continue;
      }
      if (
        anchor &&
        statSync(resolved).isFile() &&
        resolved.endsWith('.md') &&
        !anchorsIn(resolved).has(anchor)
      )
        broken.push(`${file}: ${link} (no heading #${anchor})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('a broken link or anchor is caught', () => {
  assert.deepEqual(linksIn('see [a](docs/none.md#x), `[b](c.md)`, [web](https://example.org)'), [
    'docs/none.md#x',
  ]);
  assert.equal(anchorOf('What works today'), 'what-works-today');
  assert.equal(
    anchorOf('Scale-out: instances, PgBouncer, a primary and a replica'),
    'scale-out-instances-pgbouncer-a-primary-and-a-replica',
  );
});
