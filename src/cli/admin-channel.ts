// The admin channel: how `npm run admin` reaches a database that a running server holds. Embedded
// PGlite admits one process at a time, so while the server runs on it, the server runs the admin
// command itself, on its own connection, for whoever can reach a Unix socket beside the database's
// files: the machine's operator, the user the server runs as. The socket is made 0600 (never
// briefly wider), in a directory only its owner can enter (the data directory, 0700, or when that
// path is too long for a socket, a directory of the user's own under the temporary directory),
// and the CLI speaks to it only once it has seen that the socket is its own user's: nobody else
// can listen there first, read the command's arguments or answer with a forged key. A role
// granted this way takes effect at the next request: nothing caches it. On a Postgres server the
// CLI connects as any other client and needs no channel.
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StartupError } from '../config/startup-error.js';
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

/** The user this process runs as (undefined where there are no user ids). */
const ownUid = () => process.getuid?.();

/** Why the channel's place cannot be trusted: someone else could listen there or replace the socket. */
export class UnsafeAdminChannelError extends StartupError {
  constructor(where: string, why: string) {
    super(
      `The admin channel at ${where} is not safe to use: ${why}. Remove it as its owner, or give PGLITE_DIR a ` +
        'shorter path so that the socket is made inside the data directory.',
    );
    this.name = 'UnsafeAdminChannelError';
  }
}

/**
 * The directory of the user's own for sockets whose data directory's path is too long: made 0700,
 * and refused when it is a link, someone else's, or open to others (as tmux does with its own).
 */
export async function privateSocketDirectory(directory: string, create: boolean): Promise<void> {
  if (create)
    await mkdir(directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  const found = await lstat(directory);
  const uid = ownUid();
  if (!found.isDirectory()) throw new UnsafeAdminChannelError(directory, 'it is not a directory');
  if (uid !== undefined && found.uid !== uid)
    throw new UnsafeAdminChannelError(
      directory,
      `it belongs to user ${found.uid}, not to this user (${uid})`,
    );
  if ((found.mode & 0o077) !== 0) {
    if (!create) throw new UnsafeAdminChannelError(directory, 'other users can enter it');
    await chmod(directory, 0o700);
  }
}

/**
 * The channel's socket for a PGlite directory: inside it, or, when that path is too long for a
 * socket, in this user's own directory under the temporary directory (`bot-platform-<uid>`), under
 * a name derived from the data directory's absolute path.
 */
export function adminChannelPath(pgliteDir: string): { socket: string; privateDirectory?: string } {
  const directory = path.resolve(pgliteDir);
  const inside = path.join(directory, 'admin.sock');
  if (Buffer.byteLength(inside) <= socketPathMaxBytes) return { socket: inside };
  const name = createHash('sha256').update(directory).digest('hex').slice(0, 16);
  const privateDirectory = path.join(tmpdir(), `bot-platform-${ownUid() ?? 'user'}`);
  return { socket: path.join(privateDirectory, `admin-${name}.sock`), privateDirectory };
}

/** Serves admin commands on the socket until closed. The caller holds the directory's lock. */
export async function serveAdminChannel(
  place: ReturnType<typeof adminChannelPath>,
  run: AdminRunner,
): Promise<{ close(): Promise<void> }> {
  const socketPath = place.socket;
  if (place.privateDirectory) await privateSocketDirectory(place.privateDirectory, true);
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
    // The socket file is made by listen() itself, synchronously: under this mask it is 0600 from
    // its first moment, with no window in which another user could connect before a chmod.
    const mask = process.umask(0o177);
    try {
      server.listen(socketPath, () => resolve());
    } finally {
      process.umask(mask);
    }
  });
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
export async function askAdminChannel(
  place: ReturnType<typeof adminChannelPath>,
  argv: string[],
  operator: string,
  io: AdminOutput,
): Promise<number | undefined> {
  const socketPath = place.socket;
  const found = await lstat(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (!found) return undefined;
  // The command's arguments (a bot's name, a key to come back) go only to a server of this user's.
  if (place.privateDirectory) await privateSocketDirectory(place.privateDirectory, false);
  const uid = ownUid();
  if (!found.isSocket()) throw new UnsafeAdminChannelError(socketPath, 'it is not a socket');
  if (uid !== undefined && found.uid !== uid)
    throw new UnsafeAdminChannelError(
      socketPath,
      `it belongs to user ${found.uid}, not to this user (${uid})`,
    );
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
