// `npm start` as a user runs it: a real process on embedded PGlite (no database server), real
// HTTP, graceful shutdown on SIGTERM, and data that survives a restart.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'bp-server-'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function startServer() {
  const child = spawn('npm', ['start', '--silent'], {
    env: { ...process.env, DATABASE_URL: '', PGLITE_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output.join('')}`)), 60_000);
    const read = (chunk: Buffer) => {
      output.push(String(chunk));
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then(() => reject(new Error(`server exited:\n${output.join('')}`)));
  });
  return {
    url,
    output,
    async stop() {
      child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}

describe('npm start on embedded PGlite', () => {
  test('serves the docs, registers a bot that reads back, shuts down cleanly and keeps its data', async () => {
    const server = await startServer();
    let botId: string;
    try {
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      const docs = await fetch(`${server.url}/docs/`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger-ui/);
      const spec = (await (await fetch(`${server.url}/docs/json`)).json()) as { openapi: string };
      assert.equal(spec.openapi, '3.1.0');

      const registered = await fetch(`${server.url}/api/bots/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'persistent-bot', model: 'gpt-5' }),
      });
      assert.equal(registered.status, 201);
      const { bot, api_key } = (await registered.json()) as { bot: { id: string }; api_key: string };
      botId = bot.id;
      const read = await fetch(`${server.url}/api/bots/${bot.id}`);
      assert.equal(read.status, 200);
      assert.equal(((await read.json()) as { name: string }).name, 'persistent-bot');
      assert.ok(!server.output.join('').includes(api_key.slice(3)), 'the key is in the server log');
    } finally {
      const code = await server.stop();
      assert.equal(code, 0, server.output.join(''));
    }
    assert.match(server.output.join(''), /shutting down: finishing in-flight requests/);

    const restarted = await startServer();
    try {
      const read = await fetch(`${restarted.url}/api/bots/${botId}`);
      assert.equal(read.status, 200, 'the bot survived the restart');
    } finally {
      assert.equal(await restarted.stop(), 0);
    }
  });
});
