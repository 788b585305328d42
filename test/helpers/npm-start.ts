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

export function npmStart(env: Record<string, string>): Promise<StartedServer> {
  return started('npm', ['start', '--silent'], env);
}

/** `node src/cli/run.mjs server`, what `npm start` runs: the server is this very process. */
export function serverProcess(env: Record<string, string>): Promise<StartedServer> {
  return started(process.execPath, ['src/cli/run.mjs', 'server'], env);
}

async function started(command: string, args: string[], env: Record<string, string>): Promise<StartedServer> {
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
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
