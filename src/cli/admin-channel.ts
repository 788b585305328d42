// The admin channel: how `npm run admin` reaches a database that a running server holds. Embedded
// PGlite admits one process at a time, so while the server runs on it, the server runs the admin
// command itself, on its own connection, for whoever can reach a Unix socket beside the database's
// files (mode 0600: the machine's operator, the user the server runs as). A role granted this way
// takes effect at the next request: nothing caches it. On a Postgres server the CLI connects as any
// other client and needs no channel.
import { createHash } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AdminOutput } from './admin-commands.js';

/** Runs one admin command with its output; resolves with its exit code. */
export type AdminRunner = (argv: string[], io: AdminOutput, operator: string) => Promise<number>;

interface ChannelRequest {
  argv: string[];
  operator: string;
}

interface ChannelAnswer {
  exit_code: number;
  /** The command's lines in the order it wrote them, each to its stream. */
  lines: Array<['out' | 'err', string]>;
}

/** Longest socket path every platform takes (Linux allows 107 bytes, macOS 103). */
const socketPathMaxBytes = 100;

/**
 * The channel's socket for a PGlite directory: inside it, or, when that path is too long for a
 * socket, in the temporary directory under a name derived from the directory's absolute path.
 */
export function adminChannelPath(pgliteDir: string): string {
  const directory = path.resolve(pgliteDir);
  const inside = path.join(directory, 'admin.sock');
  if (Buffer.byteLength(inside) <= socketPathMaxBytes) return inside;
  const name = createHash('sha256').update(directory).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `bot-platform-admin-${name}.sock`);
}

/** Serves admin commands on the socket until closed. The caller holds the directory's lock. */
export async function serveAdminChannel(
  socketPath: string,
  run: AdminRunner,
): Promise<{ close(): Promise<void> }> {
  // A socket left by a server that died: the lock says this process owns the directory now.
  await rm(socketPath, { force: true });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const lines: ChannelAnswer['lines'] = [];
      const answer = (status: number, body: ChannelAnswer) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      let asked: ChannelRequest;
      try {
        asked = JSON.parse(Buffer.concat(chunks).toString()) as ChannelRequest;
        if (!Array.isArray(asked.argv) || !asked.argv.every((part) => typeof part === 'string'))
          throw new Error('argv must be a list of strings');
      } catch (error) {
        answer(400, {
          exit_code: 2,
          lines: [['err', `The server could not read the command: ${(error as Error).message}`]],
        });
        return;
      }
      const io: AdminOutput = {
        out: (line) => lines.push(['out', line]),
        err: (line) => lines.push(['err', line]),
      };
      run(
        asked.argv,
        io,
        typeof asked.operator === 'string' && asked.operator ? asked.operator : 'operator',
      ).then(
        (code) => answer(200, { exit_code: code, lines }),
        (error: unknown) => {
          // The operator reads what failed; the server's log keeps nothing of it, as with a failed CLI.
          lines.push(['err', `The command failed on the server: ${(error as Error).message}`]);
          answer(500, { exit_code: 1, lines });
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => rm(socketPath, { force: true })),
  };
}

/**
 * Asks the server listening on the socket to run the command; undefined when none listens there
 * (no socket, or one a stopped server left), for the CLI to open the database itself.
 */
export function askAdminChannel(
  socketPath: string,
  argv: string[],
  operator: string,
  io: AdminOutput,
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ argv, operator } satisfies ChannelRequest);
    const request = httpRequest(
      { socketPath, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString()) as ChannelAnswer;
            for (const [stream, line] of answer.lines) io[stream](line);
            resolve(answer.exit_code);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        response.on('error', reject);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(error);
    });
    request.end(body);
  });
}
