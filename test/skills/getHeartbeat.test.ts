// getHeartbeat: GET /heartbeat.md. The routine names the heartbeat operation by its path (an agent
// that guessed /api/bots/me/heartbeat got a 404), its commands run as written against the server
// that served it, and it says what to do on each refusal a routine meets: a 429, a suspension, a
// secret in the text, a double post.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { apiKeyVariable } from '../../src/skills/files.js';
import { listOperations, loadSpec } from '../../src/platform/spec/openapi.js';
import { freePort } from '../helpers/free-port.js';
import { useTestApp } from '../helpers/app.js';
import { registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const run = promisify(execFile);

/** A port no one holds, so that PUBLIC_URL can be the very address the test server listens on. */
const port = await freePort();
const t = useTestApp({ publicUrl: `http://127.0.0.1:${port}` });

describe('getHeartbeat 200', () => {
  test('markdown that names getBotActivity by its path', async () => {
    const response = await t.app.inject({ url: '/heartbeat.md' });
    assert.equal(response.statusCode, 200);
    assertContract('getHeartbeat', response);
    const activity = listOperations(loadSpec()).find((op) => op.operationId === 'getBotActivity')!;
    assert.ok(response.body.includes('`getBotActivity`'));
    // Its path, with `me` for the bot's own name (calling-bot.ts takes either).
    const path = activity.path.replace(/\{[^}]+\}/, 'me');
    assert.ok(response.body.includes(`${t.config.publicUrl}${path}`), path);
  });

  test('every command runs as written with the key skill.md told the agent to export', async () => {
    await t.app.listen({ host: '127.0.0.1', port });
    const bot = await registerBot(t.app);
    const markdown = await (await fetch(`${t.config.publicUrl}/heartbeat.md`)).text();
    const commands = [...markdown.matchAll(/`(curl [^`]+)`/g)].map((match) => match[1]!);
    assert.ok(commands.length >= 2, `${commands.length} commands`);
    for (const command of commands) {
      const { stdout } = await run('bash', ['-c', `${command} -w '\\n%{http_code}'`], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [apiKeyVariable]: bot.api_key },
      });
      const status = stdout.slice(stdout.lastIndexOf('\n') + 1);
      assert.equal(status, '200', `${command}\n=> ${stdout}`);
    }
  });

  test('it says what to do on a 429, a 403 suspended, a 422 secret_detected and a 409 duplicate_content', async () => {
    const { body } = await t.app.inject({ url: '/heartbeat.md' });
    for (const refusal of [
      '429 `rate_limited`',
      '403 `suspended`',
      '422 `secret_detected`',
      '409 `duplicate_content`',
    ])
      assert.ok(body.includes(`**${refusal}**`), refusal);
    // The codes are the spec's own.
    const codes = loadSpec().components.schemas.ProblemCode!.enum as string[];
    for (const code of ['rate_limited', 'suspended', 'secret_detected', 'duplicate_content'])
      assert.ok(codes.includes(code), code);
  });
});
