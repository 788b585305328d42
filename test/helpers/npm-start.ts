// `npm start` as a user runs it: a real server process, read over real HTTP. The caller picks the
// database through `env` (DATABASE_URL, or PGLITE_DIR for embedded PGlite). `serverProcess` runs
// what `npm start` runs without npm in between, for a test that must kill the server itself.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startNodeOptions } from './start-options.js';

export interface StartedServer {
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output: string[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies at once, in the middle of whatever it was doing. */
  kill(): Promise<void>;
}

/** A server process from its first moment, before it listens: for a test that signals it while it starts. */
export interface SpawnedServer {
  pid: number;
  output: string[];
  /** How it ended: its exit code, or the signal it died of. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the server's URL once it listens; rejects if it exits first. */
  listening: Promise<string>;
  signal(signal: NodeJS.Signals): void;
  /** The signal to its whole process group (npm and the server alike), as a terminal's Ctrl-C or systemd sends it. */
  signalGroup(signal: NodeJS.Signals): void;
}

export function npmStart(env: Record<string, string>): Promise<StartedServer> {
  return started(spawnNpmStart(env));
}

/** `node src/cli/run.mjs server`, what `npm start` runs: the server is this very process. */
export function serverProcess(env: Record<string, string>): Promise<StartedServer> {
  return started(spawnServerProcess(env));
}

/** `npm start`, returned at once. */
export function spawnNpmStart(env: Record<string, string>): SpawnedServer {
  return spawnServer('npm', ['start', '--silent'], env);
}

/** What `npm start` runs, without npm, returned at once. */
export function spawnServerProcess(env: Record<string, string>): SpawnedServer {
  return spawnServer(process.execPath, [...startNodeOptions, 'src/cli/run.mjs', 'server'], env);
}

/** `node <nodeOptions> src/cli/run.mjs server`: the server started by hand, with options of one's own. */
export function serverProcessWith(
  nodeOptions: string[],
  env: Record<string, string>,
): Promise<StartedServer> {
  return started(spawnServer(process.execPath, [...nodeOptions, 'src/cli/run.mjs', 'server'], env));
}

function spawnServer(command: string, args: string[], env: Record<string, string>): SpawnedServer {
  const child = spawn(command, args, {
    // A process group of its own, which signalGroup() reaches whole.
    detached: true,
    env: {
      ...process.env,
      // The caller names every database it wants: none is inherited from the test's own environment.
      DATABASE_URL: '',
      DATABASE_DIRECT_URL: '',
      DATABASE_READ_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(32),
      IDENTITY_KEY_SECRET: 'i'.repeat(32),
      DM_MASTER_KEY: 'm'.repeat(32),
      EMAIL_SIGNIN: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const listening = new Promise<string>((resolve, reject) => {
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
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${output.join('')}`));
    });
  });
  // Nobody may be waiting for it (a server stopped before it listened).
  listening.catch(() => {});
  return {
    pid: child.pid!,
    output,
    exited,
    listening,
    signal: (signal) => void child.kill(signal),
    signalGroup: (signal) => {
      try {
        process.kill(-child.pid!, signal);
      } catch (error) {
        // Gone already: the group went with its last process.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    },
  };
}

async function started(server: SpawnedServer): Promise<StartedServer> {
  const url = await server.listening;
  return {
    url,
    output: server.output,
    async stop() {
      server.signal('SIGTERM');
      return (await server.exited).code;
    },
    async kill() {
      server.signal('SIGKILL');
      await server.exited;
    },
  };
}

/** Waits for the server's end: exit code 0, not death by a signal, having said that it was stopping. */
export async function assertStoppedCleanly(server: SpawnedServer): Promise<void> {
  const { code, signal } = await server.exited;
  const output = server.output.join('');
  assert.equal(signal, null, `died of ${signal}:\n${output}`);
  assert.equal(code, 0, output);
  assert.match(
    output,
    /stopping \(SIGTERM\) before start-up finished|shutting down: finishing in-flight requests/,
  );
}

/**
 * SIGTERM to a listening server under load (three clients reading the feed), with a registration
 * of `name` half sent when the signal comes: the registration must finish (201), no read may get a
 * 5xx but a draining 503, and the process must exit 0.
 */
export async function assertStopsUnderLoad(server: SpawnedServer, name: string): Promise<void> {
  const url = await server.listening;
  const statuses: number[] = [];
  let signalled = false;
  const read = async () => {
    for (;;) {
      try {
        statuses.push((await fetch(`${url}/api/feed?limit=5`)).status);
      } catch (error) {
        // Refused once the server has stopped taking connections.
        if (signalled) return;
        throw error;
      }
    }
  };
  const reads = [read(), read(), read()];
  while (statuses.length < 30) await new Promise((resolve) => setTimeout(resolve, 5));

  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk) => (answer += String(chunk)));
  const body = JSON.stringify({ name, model: 'gpt-5' });
  socket.write(
    `POST /api/bots/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  signalled = true;
  server.signal('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write(body.slice(10));
  await once(socket, 'close');
  await Promise.all(reads);
  await assertStoppedCleanly(server);
  assert.match(answer, /^HTTP\/1\.1 201 /, `the request in flight finished: ${answer}`);
  assert.deepEqual(
    statuses.filter((status) => status >= 500 && status !== 503),
    [],
    'a 503 while draining at most',
  );
}
