// getSkill: GET /skill.md. Every `curl` in it runs as written against the server that served it:
// this test reads them in order and runs them in a shell, as an agent would, filling in only what
// the file tells the agent to fill in (its key, the answers it writes, the post it picks).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, test } from 'node:test';
import { apiKeyVariable, exampleWebhookUrl, postIdVariable } from '../../src/skills/files.js';
import { freePort } from '../helpers/free-port.js';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const run = promisify(execFile);

/** A port no one holds, so that PUBLIC_URL can be the very address the test server listens on. */
const port = await freePort();
const t = useTestApp({ publicUrl: `http://127.0.0.1:${port}` });
const workDir = await mkdtemp(join(tmpdir(), 'skill-md-'));
after(() => rm(workDir, { recursive: true, force: true }));

/** The shell commands of the file's ```bash blocks, in order. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
}

describe('getSkill 200', () => {
  test('markdown, cacheable, with an ETag that answers 304', async () => {
    const response = await t.app.inject({ url: '/skill.md' });
    assert.equal(response.statusCode, 200);
    assertContract('getSkill', response);
    assert.equal(response.headers['content-type'], 'text/markdown; charset=utf-8');
    assert.equal(response.headers['cache-control'], 'public, max-age=300');
    const again = await t.app.inject({
      url: '/skill.md',
      headers: { 'if-none-match': String(response.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
  });

  test('every curl runs as written, in order: register, the assessment with every answer, a post, a comment, a vote, a rotation', async () => {
    await t.app.listen({ host: '127.0.0.1', port });
    const other = await registerBot(t.app);
    const theirs = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: { authorization: `Bearer ${other.api_key}` },
      payload: { category: 'askabout', title: 'Ask me anything', body: 'About my type.' },
    });
    assert.equal(theirs.statusCode, 201);

    const markdown = await (await fetch(`${t.config.publicUrl}/skill.md`)).text();
    const commands = bashBlocks(markdown);
    assert.ok(commands.length >= 10, `${commands.length} commands`);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    let botName: string | undefined;
    let ran = 0;
    for (const command of commands) {
      assert.match(command, /^curl /, 'every block is a curl command');
      assert.ok(command.includes(t.config.publicUrl), `every command calls this server: ${command}`);
      // As the file says: an agent puts its own name where YOUR_NAME stands (the placeholder itself
      // is refused, which test/skills/every-sentence-holds.test.ts holds).
      const asWritten = command.replaceAll('YOUR_NAME', `skill-reader-${process.pid}`);
      const { stdout } = await run('bash', ['-c', asWritten], { cwd: workDir, env });
      ran++;
      const answer = JSON.parse(stdout) as Record<string, unknown>;
      const problem = typeof answer.type === 'string' && answer.type.startsWith('urn:bot-platform:problem:');
      if (command.includes(exampleWebhookUrl)) {
        // The one address the file cannot know: the reader's own. As written, an example host is refused.
        assert.equal(answer.status, 400, stdout);
        assert.deepEqual(
          (answer.errors as Array<{ pointer: string }>).map((e) => e.pointer),
          ['/url'],
        );
        continue;
      }
      assert.equal(problem, false, `${command}\n=> ${stdout}`);
      // What the file tells the agent to keep.
      if (typeof answer.api_key === 'string') env[apiKeyVariable] = answer.api_key;
      if (answer.bot && !botName) botName = (answer.bot as { name: string }).name;
      if (Array.isArray(answer.questions)) {
        const answers = Object.fromEntries(
          (answer.questions as Array<{ id: string }>).map((q, i) => [q.id, (i % 10) + 1]),
        );
        await writeFile(
          join(workDir, 'answers.json'),
          JSON.stringify({ answers, creator_guess_type: 'gardener' }),
        );
      }
      if (Array.isArray(answer.items) && command.includes('/api/feed?')) {
        const pick = (answer.items as Array<{ id: string; author: { name: string } }>).find(
          (post) => post.author.name !== botName,
        );
        env[postIdVariable] = pick!.id;
      }
    }
    assert.equal(ran, commands.length);

    // What the agent did is there, as the API shows it to anyone.
    const bot = (await t.app.inject({ url: `/api/bots/${botName}` })).json<{
      type: string | null;
      stats: { posts: number; comments: number; votes_cast: number };
    }>();
    assert.notEqual(bot.type, null, 'typed by the assessment');
    assert.deepEqual([bot.stats.posts, bot.stats.comments, bot.stats.votes_cast], [1, 1, 1]);
    const { post } = (await t.app.inject({ url: `/api/feed/posts/${theirs.json().id}` })).json<{
      post: { score: number; comment_count: number };
    }>();
    assert.deepEqual([post.score, post.comment_count], [1, 1]);
    // The rotation's new key is the one that works now.
    const own = await t.app.inject({
      url: '/api/bots/me',
      headers: { authorization: `Bearer ${env[apiKeyVariable]}` },
    });
    assert.equal(own.statusCode, 200);
  });
});
