import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { displayPrefix, hashSecret, isWellFormedApiKey } from '../../src/platform/admission/secrets.js';
import { runAdmin } from '../../src/cli/admin.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { useTestApp } from '../helpers/app.js';
import { migratedPgliteDirectory } from '../helpers/database.js';
import { bearer, registerBot } from '../helpers/bots.js';

const t = useTestApp();

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, t.db, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err: err.join('\n') };
}

async function liveKeys(botId: string) {
  return t.db
    .selectFrom('api_keys')
    .selectAll()
    .where('bot_id', '=', botId)
    .where('revoked_at', 'is', null)
    .execute();
}

describe('admin rotate-key', () => {
  test('prints a new key once, refuses the old one from the next request, and audits who did it', async () => {
    const { bot, api_key } = await registerBot(t.app, { name: 'ada-7' });
    const result = await admin('rotate-key', 'ADA-7', '--actor', 'support-jane');
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out.length, 1);
    const newKey = result.out[0]!;
    assert.ok(isWellFormedApiKey(newKey));
    assert.match(result.err, new RegExp(`old key \\(${api_key.slice(0, 8)}`));
    assert.ok(!result.err.includes(newKey), 'the key is printed on stdout only');

    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) })).statusCode, 401);
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(newKey) })).statusCode, 200);

    const live = await liveKeys(bot.id);
    assert.deepEqual(
      live.map((k) => k.key_hash),
      [hashSecret(newKey)],
    );
    const events = await t.db.selectFrom('api_key_events').selectAll().orderBy('id').execute();
    assert.deepEqual(
      events.map((e) => [e.event, e.actor, e.key_prefix]),
      [
        ['issued', 'registration', displayPrefix(api_key)],
        ['rotated', 'support-jane', displayPrefix(newKey)],
      ],
    );
  });

  test('finds the bot by id too', async () => {
    const { bot } = await registerBot(t.app);
    assert.equal((await admin('rotate-key', bot.id)).code, 0);
  });

  test('concurrent rotations of one bot leave exactly one live key', async () => {
    const { bot } = await registerBot(t.app);
    const results = await Promise.all(Array.from({ length: 8 }, () => admin('rotate-key', bot.id)));
    assert.deepEqual(
      results.map((r) => r.code),
      Array(8).fill(0),
    );
    const live = await liveKeys(bot.id);
    assert.equal(live.length, 1);
    assert.equal(
      live[0]!.key_hash,
      hashSecret(results.map((r) => r.out[0]!).find((k) => hashSecret(k) === live[0]!.key_hash)!),
    );
  });
});

describe('admin revoke-key', () => {
  test('revokes the live key and audits it; rotating afterwards issues a working key', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const result = await admin('revoke-key', bot.name);
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(result.out, []);
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) })).statusCode, 401);
    assert.equal((await liveKeys(bot.id)).length, 0);
    const last = await t.db
      .selectFrom('api_key_events')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual([last.event, last.key_prefix], ['revoked', displayPrefix(api_key)]);

    const rotated = await admin('rotate-key', bot.name);
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(rotated.out[0]!) })).statusCode,
      200,
    );
  });

  test('revoking when there is no live key exits 1 and records nothing', async () => {
    const { bot } = await registerBot(t.app);
    assert.equal((await admin('revoke-key', bot.id)).code, 0);
    const again = await admin('revoke-key', bot.id);
    assert.equal(again.code, 1);
    assert.match(again.err, /has no live API key; nothing changed/);
    const events = await t.db.selectFrom('api_key_events').select('event').orderBy('id').execute();
    assert.deepEqual(
      events.map((e) => e.event),
      ['issued', 'revoked'],
    );
  });
});

describe('admin errors', () => {
  test('an unknown bot exits 1 and changes nothing', async () => {
    await registerBot(t.app);
    const result = await admin('rotate-key', 'nobody');
    assert.equal(result.code, 1);
    assert.match(result.err, /No bot has the id or name "nobody"/);
    assert.equal((await t.db.selectFrom('api_key_events').selectAll().execute()).length, 1);
  });

  test('bad usage exits 2 with the usage text', async () => {
    for (const argv of [
      [],
      ['rotate-key'],
      ['explode', 'x'],
      ['rotate-key', 'a', 'b'],
      ['rotate-key', 'a', '--bogus'],
    ]) {
      const result = await admin(...argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.match(result.err, /Usage: npm run admin/);
    }
  });
});

describe('npm run admin', () => {
  test('refuses a PGlite directory another process holds, instead of losing its writes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-admin-'));
    const held = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
    try {
      const env = { ...process.env, DATABASE_URL: '', PGLITE_DIR: dir };
      const failure = await promisify(execFile)(
        'npm',
        ['run', '--silent', 'admin', '--', 'rotate-key', 'anyone'],
        { env },
      ).then(
        () => assert.fail('the CLI ran against a directory in use'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failure.code, 1);
      assert.match(
        failure.stderr,
        new RegExp(`The PGlite directory ${dir} is in use by process ${process.pid}`),
      );
      assert.doesNotMatch(failure.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await held.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('rotates a key in the configured database from the command line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-admin-'));
    try {
      await migratedPgliteDirectory(dir);
      const database = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
      await database.db
        .insertInto('bots')
        .values({
          name: 'cli-bot',
          model: 'gpt-5',
          bio: null,
          requested_creator_handle: null,
          claim_code_hash: 'x',
        })
        .execute();
      await database.close();

      const env = { ...process.env, DATABASE_URL: '', PGLITE_DIR: dir };
      const { stdout, stderr } = await promisify(execFile)(
        'npm',
        ['run', '--silent', 'admin', '--', 'rotate-key', 'cli-bot', '--actor', 'ops'],
        { env },
      );
      assert.ok(isWellFormedApiKey(stdout.trim()), stdout);
      assert.match(stderr, /Rotated the API key of cli-bot/);

      const reopened = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
      const keys = await reopened.db.selectFrom('api_keys').select('key_hash').execute();
      await reopened.close();
      assert.deepEqual(keys, [{ key_hash: hashSecret(stdout.trim()) }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
