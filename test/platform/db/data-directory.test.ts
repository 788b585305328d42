// The embedded database's directory belongs to its owner alone (PGlite writes most of its files
// 0666, so the directory is what keeps other users of the machine out of the WAL and the catalog):
// a new one is made 0700, an existing one tightened, and one that cannot be made private refuses to
// start. The admin channel beside it (src/cli/admin-channel.ts) is only ever its user's.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase } from '../../../src/platform/db/database.js';
import {
  adminChannelPath,
  askAdminChannel,
  serveAdminChannel,
  UnsafeAdminChannelError,
} from '../../../src/cli/admin-channel.js';

const root = new URL('../../../', import.meta.url).pathname;
const isRoot = process.getuid?.() === 0;
/** Another user of the machine: `nobody`, whom a root test process can act as. */
const otherUid = 65534;

async function scratch(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bp-data-dir-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const silent = { out: () => {}, err: () => {} };

describe('the PGlite directory', () => {
  test('a new one is made 0700; one opened to others since is tightened to its owner alone', async (t) => {
    const dir = path.join(await scratch(t), 'data');
    const created = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
    await created.close();
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.ok((await readdir(dir)).includes('pg_wal'), 'PGlite wrote its files there');

    await chmod(dir, 0o755);
    const reopened = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
    await reopened.close();
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
  });

  test('one that cannot be made private (another user’s) refuses to start, in words, without a stack trace', async (t) => {
    // Root can tighten anything: it runs the server as another user, on root's directory open to all.
    // Anyone else points PGLITE_DIR at the temporary directory itself, which it cannot tighten.
    let dir = tmpdir();
    if (isRoot) {
      dir = await scratch(t);
      await chmod(dir, 0o777);
    }
    const before = (await stat(dir)).mode;
    const failure = await promisify(execFile)(process.execPath, ['src/cli/run.mjs', 'migrate'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: '', PGLITE_DIR: dir },
      ...(isRoot ? { uid: otherUid, gid: otherUid } : {}),
    }).then(
      () => assert.fail('started on a directory other users can reach'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failure.code, 1, failure.stderr);
    assert.match(failure.stderr, new RegExp(`The PGlite directory ${dir} can be reached by other users`));
    assert.match(failure.stderr, /chmod 700/);
    assert.doesNotMatch(failure.stderr, /\n\s+at /, 'no stack trace');
    assert.equal((await stat(dir)).mode, before, 'nothing changed');
    if (isRoot) assert.deepEqual(await readdir(dir), [], 'nothing was written there');
  });
});

describe('the admin channel', () => {
  test('beside a long data path its socket is in a directory of the user’s own (0700), 0600 from the start', async (t) => {
    const dir = path.join(await scratch(t), 'a'.repeat(60), 'b'.repeat(60));
    const place = adminChannelPath(dir);
    assert.ok(place.privateDirectory, 'the path is too long for a socket inside it');
    assert.equal(path.dirname(place.socket), place.privateDirectory);
    assert.equal(place.privateDirectory, path.join(tmpdir(), `bot-platform-${process.getuid!()}`));
    const mask = process.umask(0o022);
    const channel = await serveAdminChannel(place, async (argv, io) => {
      io.out(`ran ${argv.join(' ')}`);
      return 0;
    });
    try {
      assert.equal(process.umask(0o022), 0o022, 'the process’s mask is as it was');
      assert.equal((await stat(place.privateDirectory)).mode & 0o777, 0o700);
      assert.equal((await stat(place.socket)).mode & 0o777, 0o600);
      const lines: string[] = [];
      const code = await askAdminChannel(place, ['rotate-key', 'ada'], 'ops', {
        out: (line) => lines.push(line),
        err: (line) => lines.push(line),
      });
      assert.equal(code, 0);
      assert.deepEqual(lines, ['ran rotate-key ada']);
    } finally {
      await channel.close();
      process.umask(mask);
    }
  });

  test('a directory of the user’s own left open to others is tightened by the server, and refused by the CLI', async (t) => {
    const dir = path.join(await scratch(t), 'c'.repeat(60), 'd'.repeat(60));
    const place = adminChannelPath(dir);
    await mkdir(place.privateDirectory!, { recursive: true });
    await chmod(place.privateDirectory!, 0o777);
    await writeFile(place.socket, '');
    await assert.rejects(
      askAdminChannel(place, ['rotate-key', 'ada'], 'ops', silent),
      (error: Error) =>
        error instanceof UnsafeAdminChannelError && /other users can enter it/.test(error.message),
    );
    const channel = await serveAdminChannel(place, async () => 0);
    await channel.close();
    assert.equal((await stat(place.privateDirectory!)).mode & 0o777, 0o700);
  });

  test('a socket another user made first is never spoken to: the CLI refuses it, naming its owner', async (t) => {
    const dir = await scratch(t);
    const place = adminChannelPath(dir);
    assert.equal(place.privateDirectory, undefined, 'a short path: the socket is inside the data directory');
    let heard = '';
    const squatter = createServer((socket) => socket.on('data', (chunk) => (heard += String(chunk))));
    await new Promise<void>((resolve) => squatter.listen(place.socket, resolve));
    t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    // Only root can give a file away; anyone else sees a socket that is not its own as a plain
    // file put in its place.
    if (isRoot) await chown(place.socket, otherUid, otherUid);
    else await rm(place.socket).then(() => writeFile(place.socket, ''));
    await assert.rejects(askAdminChannel(place, ['rotate-key', 'ada'], 'ops', silent), (error: Error) => {
      assert.ok(error instanceof UnsafeAdminChannelError, String(error));
      assert.match(
        error.message,
        isRoot ? new RegExp(`belongs to user ${otherUid}, not to this user`) : /it is not a socket/,
      );
      return true;
    });
    assert.equal(heard, '', 'the command’s arguments went nowhere');
  });

  test(
    'a private directory squatted by another user: the server will not serve there, the CLI will not ask there',
    { skip: !isRoot && 'only root can make a directory belong to another user' },
    async (t) => {
      const squatted = path.join(await scratch(t), 'bot-platform-squatted');
      await mkdir(squatted, { mode: 0o700 });
      const place = {
        socket: path.join(squatted, 'admin-0123456789abcdef.sock'),
        privateDirectory: squatted,
      };
      let heard = '';
      const squatter = createServer((socket) => socket.on('data', (chunk) => (heard += String(chunk))));
      await new Promise<void>((resolve) => squatter.listen(place.socket, resolve));
      t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
      await chown(squatted, otherUid, otherUid);
      const owned = new RegExp(
        `${squatted} is not safe to use: it belongs to user ${otherUid}, not to this user`,
      );
      await assert.rejects(
        serveAdminChannel(place, async () => 0),
        (error: Error) => error instanceof UnsafeAdminChannelError && owned.test(error.message),
      );
      assert.ok((await stat(place.socket)).isSocket(), 'the server removed nothing there');
      await assert.rejects(
        askAdminChannel(place, ['rotate-key', 'ada'], 'ops', silent),
        (error: Error) => error instanceof UnsafeAdminChannelError && owned.test(error.message),
      );
      assert.equal(heard, '', 'the command’s arguments went nowhere');
    },
  );
});
