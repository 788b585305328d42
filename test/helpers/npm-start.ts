// `npm start` as a user runs it: a real server process, read over real HTTP. The caller picks the
// database through `env` (DATABASE_URL, or PGLITE_DIR for embedded PGlite). `serverProcess` runs
// what `npm start` runs without npm in between, for a test that must kill the server itself.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

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
}

export function npmStart(env: Record<string, string>): Promise<StartedServer> {
  return started(spawnNpmStart(env));
}

/** `node src/cli/run.mjs server`, what `npm start` runs: the server is this very process. */
export function serverProcess(env: Record<string, string>): Promise<StartedServer> {
  return started(spawnServer(process.execPath, ['src/cli/run.mjs', 'server'], env));
}

/** `npm start`, returned at once. */
export function spawnNpmStart(env: Record<string, string>): SpawnedServer {
  return spawnServer('npm', ['start', '--silent'], env);
}

function spawnServer(command: string, args: string[], env: Record<string, string>): SpawnedServer {
  const child = spawn(command, args, {
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
  return { pid: child.pid!, output, exited, listening, signal: (signal) => void child.kill(signal) };
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
