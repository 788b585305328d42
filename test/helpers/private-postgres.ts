// A Postgres server of our own, in a temporary directory on a free port, that a fault test may stop
// and start at will without disturbing the shared server other tests use; or a streaming replica of
// one (pg_basebackup -R), for the tests of reads on a replica. Uses the machine's
// Postgres binaries (PG_BIN, default /usr/lib/postgresql/15/bin); as root, runs them as `postgres`.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const bin = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  url: string;
  port: number;
  start(): void;
  stop(): void;
  destroy(): void;
}

/** A new server, or with `replicaOf` a streaming replica of that one (hot standby, read-only). */
export async function startPrivatePostgres(replicaOf?: PrivatePostgres): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'bp-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres'])),
      Number(execFileSync('id', ['-g', 'postgres'])),
    );
  }
  const run = (program: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, program),
      asRoot ? ['-u', 'postgres', '--', join(bin, program), ...args] : args,
      { stdio: 'pipe' },
    );
  const data = join(dir, 'data');
  if (replicaOf) {
    run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(replicaOf.port),
      '-U',
      'postgres',
      '-D',
      data,
      '-R',
      '-X',
      'stream',
      // An immediate checkpoint: the default (spread) paces the primary's dirty pages out over
      // half a minute before the copy starts.
      '-c',
      'fast',
    ]);
  } else {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  }
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off`;
  const server = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => void run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']),
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    destroy() {
      try {
        server.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  return server;
}

/** Migrates the database at `url` as an operator would: `npm run migrate`'s program, in a process of its own. */
export function migrate(url: string): void {
  execFileSync(process.execPath, ['src/cli/run.mjs', 'migrate'], {
    env: { ...process.env, DATABASE_URL: url, DATABASE_DIRECT_URL: '', DATABASE_READ_URL: '' },
    stdio: 'pipe',
  });
}
