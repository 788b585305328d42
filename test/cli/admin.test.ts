import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { displayPrefix, hashSecret, isWellFormedApiKey } from '../../src/platform/admission/secrets.js';
import { runAdmin } from '../../src/cli/admin-commands.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { useTestApp } from '../helpers/app.js';
import { emptyDatabaseOnServer, pgliteDirectoryFromTemplate, serverUrl } from '../helpers/database.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { signIn } from '../helpers/humans.js';
import { serverProcess, type StartedServer } from '../helpers/npm-start.js';
import { adminChannelPath } from '../../src/cli/admin-channel.js';

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

describe('admin grant-moderator and revoke-moderator', () => {
  const roleLog = () =>
    t.db
      .selectFrom('moderation_actions')
      .select(['action', 'target_type', 'target_email', 'reason', 'actor'])
      .orderBy('seq')
      .execute();

  test('grants the role to an address before its first sign-in, logged; whoever signs in with it moderates', async () => {
    const granted = await admin(
      'grant-moderator',
      ' Ada@Example.com ',
      '--actor',
      'ops',
      '--reason',
      'Night shift.',
    );
    assert.equal(granted.code, 0, granted.err);
    assert.match(granted.err, /ada@example.com is a moderator/);
    const again = await admin('grant-moderator', 'ada@example.com', '--actor', 'ops');
    assert.equal(again.code, 0);
    assert.match(again.err, /already; nothing changed/);
    assert.deepEqual(await roleLog(), [
      {
        action: 'grant_moderator',
        target_type: 'human',
        target_email: 'ada@example.com',
        reason: 'Night shift.',
        actor: 'ops',
      },
    ]);
    const cookie = await signIn(t, 'ADA@example.com');
    assert.equal(
      (await t.app.inject({ url: '/api/moderation/reports', headers: { cookie } })).statusCode,
      200,
    );

    const revoked = await admin('revoke-moderator', 'ada@example.com', '--actor', 'ops');
    assert.equal(revoked.code, 0, revoked.err);
    assert.equal(
      (await t.app.inject({ url: '/api/moderation/reports', headers: { cookie } })).statusCode,
      403,
    );
    const none = await admin('revoke-moderator', 'ada@example.com');
    assert.equal(none.code, 1);
    assert.match(none.err, /not a moderator; nothing changed/);
    assert.deepEqual(
      (await roleLog()).map((row) => [row.action, row.reason]),
      [
        ['grant_moderator', 'Night shift.'],
        ['revoke_moderator', 'by the operator'],
      ],
    );
  });

  test('what a grant promises is the sign-in this server offers, and nobody is promised one it does not', async () => {
    const grant = async (email: string, signIn: { email: boolean; providers: string[] }) => {
      const err: string[] = [];
      const code = await runAdmin(
        ['grant-moderator', email],
        t.db,
        { out: () => {}, err: (l) => err.push(l) },
        { signIn },
      );
      assert.equal(code, 0);
      return err.join('\n');
    };
    assert.match(
      await grant('mail@example.com', { email: true, providers: [] }),
      /an e-mailed link\) can use \/moderation/,
    );
    assert.match(
      await grant('oidc@example.com', { email: false, providers: ['github'] }),
      /signs in through github with an account of that address can use \/moderation \(e-mail sign-in is off\)/,
    );
    const nobody = await grant('nobody@example.com', { email: false, providers: [] });
    assert.match(
      nobody,
      /holds the moderator role, but nobody can use it yet: nobody can sign in to this server/,
    );
    assert.match(nobody, /EMAIL_SIGNIN=off/);
    assert.doesNotMatch(nobody, /whoever signs in with it \(/);
  });

  test('--name is what the console calls a moderator without a creator handle; without one, the address’s name', async () => {
    assert.equal((await admin('grant-moderator', 'night@example.com', '--name', 'Night shift')).code, 0);
    assert.equal((await admin('grant-moderator', 'day.shift@example.com')).code, 0);
    const night = await signIn(t, 'night@example.com');
    const day = await signIn(t, 'day.shift@example.com');
    const author = await registerBot(t.app);
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(author.api_key),
      payload: { category: 'results', title: 'x', body: 'Spam.' },
    });
    for (const [cookie, action] of [
      [night, 'remove'],
      [day, 'restore'],
    ] as const) {
      const acted = await t.app.inject({
        method: 'POST',
        url: '/api/moderation/actions',
        headers: { cookie, origin: new URL(t.config.publicUrl).origin },
        payload: { action, target_type: 'post', target_id: post.json().id, reason: 'x' },
      });
      assert.equal(acted.statusCode, 201, acted.body);
    }
    const log = (await t.app.inject({ url: '/api/moderation/actions', headers: { cookie: night } })).json();
    assert.deepEqual(
      log.items.slice(0, 2).map((entry: { moderator: { name: string } }) => entry.moderator.name),
      ['day.shift', 'Night shift'],
    );
    const page = await t.app.inject({ url: '/moderation', headers: { cookie: night } });
    assert.ok(page.body.includes('Night shift removed'), 'the console names them');
    assert.ok(!page.body.includes('A moderator removed'));
    const renamed = await admin('grant-moderator', 'day.shift@example.com', '--name', 'Day shift');
    assert.match(renamed.err, /the console calls them Day shift now/);
    assert.equal((await admin('grant-moderator', 'x@example.com', '--name', '')).code, 2);
  });

  test('not an address, a reason too long, a reason on a key command: usage, nothing written', async () => {
    assert.equal((await admin('grant-moderator', 'ada')).code, 2);
    assert.equal((await admin('rotate-key', 'ada', '--name', 'x')).code, 2);
    assert.equal((await admin('grant-moderator', 'ada@example.com', '--reason', 'x'.repeat(501))).code, 2);
    assert.equal((await admin('rotate-key', 'ada', '--reason', 'why')).code, 2);
    assert.deepEqual(await roleLog(), []);
    assert.deepEqual(await t.db.selectFrom('moderators').selectAll().execute(), []);
  });
});

describe('admin create-app-role', () => {
  test('prints the grants for the owner to run: rows of every table, the log append-only, no ownership', async () => {
    const { code, out } = await admin('create-app-role', 'bot_platform_app');
    assert.equal(code, 0);
    const printed = out.join('\n');
    assert.match(printed, /create role "bot_platform_app" login/);
    assert.match(
      printed,
      /grant select, insert, update, delete on all tables in schema public to "bot_platform_app";/,
    );
    assert.match(printed, /revoke update, delete, truncate on moderation_actions from "bot_platform_app";/);
    assert.match(
      printed,
      /alter default privileges in schema public grant select, insert, update, delete on tables/,
    );
    assert.match(printed, /alter role "bot_platform_app" set statement_timeout = '\d+ms';/);
    assert.doesNotMatch(printed, /owner to|superuser|createrole|createdb/i);
    // Printed, not run: no such role.
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_roles where rolname = 'bot_platform_app'`.execute(t.db);
    assert.equal(rows[0]!.n, 0);
  });

  test('a name that is not a plain role name, or --apply on another command: usage, nothing run', async () => {
    assert.equal((await admin('create-app-role', 'app"; drop table posts; --')).code, 2);
    assert.equal((await admin('create-app-role', 'App')).code, 2);
    assert.equal((await admin('rotate-key', 'ada', '--apply')).code, 2);
  });
});

describe('npm run admin', () => {
  test('refuses a PGlite directory another process holds, instead of losing its writes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-admin-'));
    await pgliteDirectoryFromTemplate(dir);
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
      await pgliteDirectoryFromTemplate(dir);
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

describe('npm run admin while the server runs', () => {
  const email = 'night-shift@example.com';
  /** The CLI on the database the server uses: the PGlite directory, or the Postgres server's database. */
  let database: Record<string, string> = {};
  const admin = (...argv: string[]) =>
    promisify(execFile)('npm', ['run', '--silent', 'admin', '--', ...argv], {
      env: { ...process.env, DATABASE_URL: '', ...database },
    });
  let dir = '';

  /** A person signed in on the running server by the e-mail link it logs, as a browser would. */
  async function signInOver(server: StartedServer): Promise<string> {
    const requested = await fetch(`${server.url}/api/auth/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    assert.equal(requested.status, 202);
    const browser = requested.headers.getSetCookie()[0]!.split(';')[0]!;
    // The link is logged as the mail would be sent, just after the answer: wait for its line.
    const loggedLine = () =>
      server.output
        .join('')
        .split('\n')
        .findLast((l) => l.includes('"sign_in_link"') && l.includes(email));
    for (let waited = 0; !loggedLine() && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const line = loggedLine();
    assert.ok(line, 'the sign-in link is logged');
    const link = new URL((JSON.parse(line) as { sign_in_link: string }).sign_in_link);
    const followed = await fetch(`${server.url}${link.pathname}${link.search}`, {
      headers: { cookie: browser },
      redirect: 'manual',
    });
    assert.equal(followed.status, 302);
    const session = followed.headers.getSetCookie().find((c) => c.startsWith('bp_session='));
    assert.ok(session, 'signed in');
    return session.split(';')[0]!;
  }
  const moderationPage = (server: StartedServer, cookie: string) =>
    fetch(`${server.url}/moderation`, { headers: { cookie } }).then((r) => r.status);

  test(
    'on a Postgres server: grants and revokes the role, which the running server applies at the next request',
    { skip: !serverUrl && 'runs in the Postgres pass' },
    async () => {
      const own = await emptyDatabaseOnServer();
      database = { DATABASE_URL: own.url };
      const server = await serverProcess({ ...database, NODE_ENV: 'development', EMAIL_SIGNIN: 'on' });
      try {
        const cookie = await signInOver(server);
        assert.equal(await moderationPage(server, cookie), 403, 'no role yet');
        const granted = await admin('grant-moderator', email, '--actor', 'ops');
        assert.match(granted.stderr, /night-shift@example\.com is a moderator/);
        assert.equal(await moderationPage(server, cookie), 200, 'the role holds at once, no restart');
        await admin('revoke-moderator', email);
        assert.equal(await moderationPage(server, cookie), 403);
      } finally {
        await server.stop();
        await own.drop();
      }
    },
  );

  test('on PGlite: grants and revokes the role through the server, which applies it at the next request; a restart keeps the session', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bp-admin-live-'));
    database = { PGLITE_DIR: dir };
    const development = {
      PGLITE_DIR: dir,
      NODE_ENV: 'development',
      SESSION_SECRET: '',
      IDENTITY_KEY_SECRET: '',
      EMAIL_SIGNIN: 'on',
    };
    // A migrated directory, as the server would leave it (test/cli/migrate.test.ts migrates from empty).
    await pgliteDirectoryFromTemplate(dir);
    let server = await serverProcess(development);
    try {
      const cookie = await signInOver(server);
      assert.equal(await moderationPage(server, cookie), 403, 'no role yet');

      const granted = await admin('grant-moderator', email, '--actor', 'ops');
      assert.match(granted.stderr, /night-shift@example\.com is a moderator/);
      assert.equal(await moderationPage(server, cookie), 200, 'the role holds at once, no restart');
      const again = await admin('grant-moderator', email);
      assert.match(again.stderr, /a moderator already; nothing changed/, 'the server’s database holds it');

      // Development secrets are kept with the data (owner-only), so the same cookie still signs in.
      assert.equal((await stat(path.join(dir, 'development-secrets.json'))).mode & 0o777, 0o600);
      assert.equal((await stat(adminChannelPath(dir).socket)).mode & 0o777, 0o600);
      assert.equal(await server.stop(), 0);
      await assert.rejects(
        stat(adminChannelPath(dir).socket),
        /ENOENT/,
        'the channel closes with the server',
      );
      server = await serverProcess(development);
      assert.equal(await moderationPage(server, cookie), 200, 'still signed in after a restart');

      const revoked = await admin('revoke-moderator', email, '--reason', 'rotation ended');
      assert.match(revoked.stderr, /no longer a moderator/);
      assert.equal(await moderationPage(server, cookie), 403);
      const failure = await admin('revoke-moderator', email).then(
        () => assert.fail('revoking twice succeeded'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failure.code, 1, 'the command’s exit code comes back through the channel');
      assert.match(failure.stderr, /is not a moderator; nothing changed/);
    } finally {
      await server.stop();
    }
    const log = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
    try {
      const entries = await log.db
        .selectFrom('moderation_actions')
        .select(['action', 'actor'])
        .where('target_email', '=', email)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        entries.map((e) => e.action),
        ['grant_moderator', 'revoke_moderator'],
      );
      assert.equal(entries[0]!.actor, 'ops', 'the operator named in the log');
    } finally {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
