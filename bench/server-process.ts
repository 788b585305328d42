// Servers under measurement run as processes of their own, as in production: started on a free port
// on 127.0.0.1, probed until they answer, sampled for RSS from /proc, and stopped with SIGTERM.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { freePort } from '../test/helpers/free-port.js';
import { startNodeOptions } from '../test/helpers/start-options.js';

export { startNodeOptions };

/** `node` arguments that start our server as `npm start` does: compiled, without a TypeScript loader. */
export const serverArgs = [...startNodeOptions, 'dist/server.bundle.js'];

/**
 * Stops a timing run in a process started without the start script's V8 options: it would time
 * what production does not run (the detectors interpreted, up to five times as slow on a long text).
 */
export function assertStartNodeOptions() {
  const missing = startNodeOptions.filter((option) => !process.execArgv.includes(option));
  if (missing.length > 0) {
    throw new Error(
      `run this as \`node ${startNodeOptions.join(' ')} ...\` (npm start's V8 options); missing ${missing.join(' ')}`,
    );
  }
}

/** `npm run build`, so that the measured server is the current source. */
export function buildServer() {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}

export interface ServerProcess {
  child: ChildProcess;
  base: string;
}

/** Starts `node <args>` on a free port and resolves once `probe` answers 200 there. */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  probe = '/healthz',
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + String(chunk)).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited before answering:\n${errors}`);
    const response = await fetch(`${base}${probe}`).catch(() => undefined);
    if (response?.status === 200) return { child, base };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** SIGTERM, then the exit code once the process has drained and exited. */
export async function stopProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill('SIGTERM');
  const [code] = await exited;
  return code;
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
