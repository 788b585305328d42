// Least privilege in the database: the server runs as a role `create-app-role` made, owning
// nothing. Its credentials cannot rewrite the moderation log (neither by UPDATE or DELETE, nor by
// disabling the trigger that keeps it append-only), nor change the schema; and every operation,
// page and periodic job still works as that role. On PGlite (its one session switched to the role)
// as on a Postgres server (a connection of the role).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { sql, type MigrationProvider } from 'kysely';
import { buildApp } from '../../../src/app.js';
import { runAdmin } from '../../../src/cli/admin-commands.js';
import { liftEndedSuspensions } from '../../../src/moderation/service/actions.js';
import { grantModeratorRole } from '../../../src/moderation/repository/roles.js';
import { pruneRateLimitHits } from '../../../src/platform/admission/sliding-window.js';
import { loadDefinitions } from '../../../src/platform/db/definitions.js';
import {
  checkGrants,
  migrateToLatest,
  MigrationsNotOwnedError,
  RoleWithoutGrantsError,
} from '../../../src/platform/db/migrate.js';
import { claimPeriodicRun } from '../../../src/platform/db/periodic-work.js';
import type { Db } from '../../../src/platform/db/schema.js';
import {
  markStreamSlotsAlive,
  releaseStreamSlots,
  takeStreamSlots,
} from '../../../src/platform/event-streams/repository.js';
import { pruneIdempotencyKeys } from '../../../src/platform/idempotency/retention.js';
import { pruneExpiredSessions } from '../../../src/platform/sessions/repository.js';
import { pruneDeliveries } from '../../../src/webhooks/repository.js';
import { pruneFeedEvents, stampFeedEvents } from '../../../src/feed/repository/feed-events.js';
import { prunePostBodyHashes } from '../../../src/feed/repository/posts.js';
import { logCollector, testConfig, type TestApp } from '../../helpers/app.js';
import { creatorAnswersLike } from '../../helpers/assessments.js';
import { bearer, createPost, registerTypedBot } from '../../helpers/bots.js';
import { createTestDatabase, emptyDatabaseOnServer, serverUrl } from '../../helpers/database.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { asHuman, signIn, signInAsCreator, uniqueEmail } from '../../helpers/humans.js';
import { comment, inbox } from '../../helpers/notifications.js';

const t = { logs: [] as string[] } as TestApp;
/** The least-privileged role's own connection (the server's), beside t.db, the owner's. */
let roleDb: Db;
let role: string;

before(async () => {
  t.database = await createTestDatabase();
  t.db = t.database.db;
  t.config = testConfig();
  // What `npm run admin -- create-app-role <name> --apply` does, run as the owner.
  const printed: string[] = [];
  const io = { out: (line: string) => void printed.push(line), err: () => {} };
  assert.equal(await runAdmin(['create-app-role', 'bp_printed_only'], t.db, io), 0);
  assert.ok(printed.some((line) => line.startsWith('revoke update, delete, truncate on moderation_actions')));
  const connected = await t.database.asAppRole();
  ({ role, db: roleDb } = connected);
  t.app = await buildApp({
    config: t.config,
    db: roleDb,
    signals: connected.signals,
    logStream: logCollector(t.logs),
  });
  await t.app.ready();
});
after(async () => {
  await t.app?.close();
  await t.database?.close();
});

/** The SQLSTATE a statement of the role fails with (it must fail), its transaction rolled back. */
async function refused(statement: string): Promise<string> {
  try {
    await roleDb.transaction().execute(async (trx) => {
      await sql.raw(statement).execute(trx);
    });
  } catch (error) {
    return (error as { code: string }).code;
  }
  assert.fail(`the server's role could: ${statement}`);
}

describe('the server’s role owns nothing', () => {
  test('it cannot rewrite the moderation log, disable its trigger, or change the schema', async () => {
    // One entry in the log, written as the server writes them.
    await grantModeratorRole(roleDb, { email: uniqueEmail(), actor: 'test', reason: 'an entry to rewrite' });
    const insufficientPrivilege = '42501';
    for (const statement of [
      'alter table moderation_actions disable trigger append_only',
      'alter table moderation_actions disable trigger all',
      "update moderation_actions set reason = 'rewritten'",
      'delete from moderation_actions',
      'truncate moderation_actions',
      'drop table moderation_actions',
      'alter table posts add column rewritten text',
      'drop trigger append_only on moderation_actions',
      'create table rewritten (id integer)',
      'create or replace function moderation_actions_append_only() returns trigger language plpgsql as $$ begin return null; end $$',
      "insert into kysely_migration (name, timestamp) values ('rewritten', 'now')",
    ])
      assert.equal(await refused(statement), insufficientPrivilege, statement);
    const { rows } = await t.database.asOwner((owner) =>
      sql<{ reason: string }>`select reason from moderation_actions`.execute(owner),
    );
    assert.deepEqual(
      rows.map((row) => row.reason),
      ['an entry to rewrite'],
    );
    const { rows: current } = await sql<{ user: string }>`select current_user as user`.execute(roleDb);
    assert.equal(current[0]!.user, role);
  });

  test('it finds the schema up to date and applies nothing; a migration still to apply is the owner’s, and it says so', async () => {
    assert.deepEqual(await migrateToLatest(roleDb), []);
    // The migrations applied, and one more that changes a table, as the next version would bring.
    const applied = await t.database.asOwner(async (owner) =>
      (await sql<{ name: string }>`select name from kysely_migration`.execute(owner)).rows.map(
        (row) => row.name,
      ),
    );
    const next: MigrationProvider = {
      getMigrations: async () => ({
        ...Object.fromEntries(applied.map((name) => [name, { up: async () => {} }])),
        '9999-12-31T00-00-00_next-version': {
          up: async (db) => void (await sql`alter table posts add column next_version text`.execute(db)),
        },
      }),
    };
    await assert.rejects(migrateToLatest(roleDb, next), MigrationsNotOwnedError);
    // A function's definition changed, as the next version would bring: the same.
    const [first, ...rest] = await loadDefinitions();
    const changed = { ...first!, checksum: `${first!.checksum}-next-version` };
    await assert.rejects(
      migrateToLatest(roleDb, undefined, { definitions: [changed, ...rest] }),
      MigrationsNotOwnedError,
    );
    // Nothing of it was applied.
    assert.deepEqual(await migrateToLatest(roleDb), []);
  });

  test(
    'on a database never migrated, it is told who must migrate (not that a migration failed)',
    { skip: !serverUrl && 'a second database: the Postgres pass' },
    async () => {
      const empty = await emptyDatabaseOnServer();
      const fresh = await openDatabase({
        databaseUrl: Object.assign(new URL(empty.url), { username: role }).toString(),
        pgliteDir: 'memory://',
      });
      try {
        await assert.rejects(migrateToLatest(fresh.db), MigrationsNotOwnedError);
      } finally {
        await fresh.close();
        await empty.drop();
      }
    },
  );

  test('a role given its grants starts; one without them is stopped at start with what to run', async () => {
    await checkGrants(roleDb);
    if (!serverUrl) return; // PGlite's one session is the owner's or the role's: a third role needs a server.
    const bare = `bp_bare_${Date.now()}`;
    await t.database.asOwner((owner) => sql`create role ${sql.id(bare)} login`.execute(owner));
    const connection = await openDatabase({
      databaseUrl: Object.assign(new URL(t.database.url!), { username: bare }).toString(),
      pgliteDir: 'memory://',
    });
    try {
      await assert.rejects(checkGrants(connection.db), (error: Error) => {
        assert.ok(error instanceof RoleWithoutGrantsError);
        assert.match(error.message, new RegExp(`npm run admin -- create-app-role ${bare} --apply`));
        return true;
      });
    } finally {
      await connection.close();
      await t.database.asOwner((owner) => sql`drop role ${sql.id(bare)}`.execute(owner));
    }
  });

  test('every kind of write works as that role: bots, posts, people, moderation, streams, periodic jobs', async () => {
    const [ada, grace] = await Promise.all([
      registerTypedBot(t.app, 'oracle'),
      registerTypedBot(t.app, 'spark'),
    ]);
    const ok = async (
      what: string,
      request: InjectOptions,
      status = 200,
    ): Promise<Record<string, unknown>> => {
      const response = await t.app.inject(request);
      assert.equal(response.statusCode, status, `${what}: ${response.body}`);
      return String(response.headers['content-type']).includes('json') ? response.json() : {};
    };
    const post = await createPost(t.app, ada.api_key);
    const reply = await comment(t.app, grace.api_key, post.id, `Nice, @${ada.bot.name}.`);
    await ok('voteOnPost', {
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(grace.api_key),
      payload: { direction: 'up' },
    });
    await ok(
      'followBot',
      { method: 'PUT', url: `/api/bots/${ada.bot.id}/follow`, headers: bearer(grace.api_key) },
      204,
    );
    await ok(
      'blockBot',
      { method: 'PUT', url: `/api/bots/${grace.bot.id}/block`, headers: bearer(ada.api_key) },
      204,
    );
    await ok(
      'unblockBot',
      { method: 'DELETE', url: `/api/bots/${grace.bot.id}/block`, headers: bearer(ada.api_key) },
      204,
    );
    await ok('rateAccuracy', {
      method: 'POST',
      url: `/api/bots/${ada.bot.id}/rate-accuracy`,
      headers: bearer(ada.api_key),
      payload: { rating: 4 },
    });
    await ok('updateOwnBot', {
      method: 'PATCH',
      url: '/api/bots/me',
      headers: bearer(ada.api_key),
      payload: { bio: 'Least.' },
    });
    await ok('setWebhook', {
      method: 'PUT',
      url: '/api/bots/me/webhook',
      headers: bearer(ada.api_key),
      payload: { url: 'https://93.184.215.14/hooks/bot-platform' },
    });
    const notes = await inbox(t.app, ada.api_key);
    assert.ok(notes.items.length > 0);
    await ok('markNotificationsRead', {
      method: 'POST',
      url: '/api/bots/me/notifications/read',
      headers: bearer(ada.api_key),
      payload: { up_to: notes.items[0]!.id },
    });
    await ok('getBotActivity', { url: '/api/bots/me/activity', headers: bearer(ada.api_key) });
    const token = await ok(
      'createIdentityToken',
      {
        method: 'POST',
        url: '/api/bots/me/identity-tokens',
        headers: bearer(ada.api_key),
        payload: { audience: 'https://chess.example.com' },
      },
      201,
    );
    const verified = await ok('verifyIdentityToken', {
      method: 'POST',
      url: '/api/identity/verify',
      payload: { token: token.token, audience: 'https://chess.example.com' },
    });
    assert.equal(verified.valid, true);
    await ok(
      'reportContent',
      {
        method: 'POST',
        url: '/api/reports',
        headers: bearer(ada.api_key),
        payload: { target_type: 'comment', target_id: reply.id, reason: 'spam' },
      },
      201,
    );
    await ok(
      'createPost with an Idempotency-Key',
      {
        method: 'POST',
        url: '/api/feed/posts',
        headers: { ...bearer(grace.api_key), 'idempotency-key': 'least-1' },
        payload: { category: 'results', title: 'Retried', body: 'Once only.' },
      },
      201,
    );

    // People: a creator claims Ada, takes their own test, rotates her key.
    const creator = await signInAsCreator(t, 'least');
    await ok('claimBot', {
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(creator),
      payload: { claim_code: ada.claim_code },
    });
    await ok(
      'submitCreatorAssessment',
      {
        method: 'POST',
        url: '/api/me/creator-test',
        headers: asHuman(creator),
        payload: { answers: creatorAnswersLike('gardener') },
      },
      201,
    );
    const rotated = await ok(
      'rotateClaimedBotKey',
      {
        method: 'POST',
        url: `/api/me/bots/${ada.bot.id}/keys`,
        headers: asHuman(creator),
      },
      201,
    );

    // A moderator, appointed as the operator's CLI does (on the server's connection), suspends
    // Grace hiding what she wrote; she appeals; it is granted; the log has it all.
    const email = uniqueEmail();
    await grantModeratorRole(roleDb, { email, actor: 'operator', reason: 'least privilege' });
    const moderator = await signIn(t, email);
    await ok('listReports', { url: '/api/moderation/reports', headers: { cookie: moderator } });
    const removal = await ok(
      'moderate remove',
      {
        method: 'POST',
        url: '/api/moderation/actions',
        headers: asHuman(moderator),
        payload: { action: 'remove', target_type: 'comment', target_id: reply.id, reason: 'Spam.' },
      },
      201,
    );
    await ok(
      'moderate suspend',
      {
        method: 'POST',
        url: '/api/moderation/actions',
        headers: asHuman(moderator),
        payload: {
          action: 'suspend',
          target_type: 'bot',
          target_id: grace.bot.id,
          reason: 'Spam.',
          hide_content: true,
        },
      },
      201,
    );
    const appeal = await ok(
      'appealModeration',
      {
        method: 'POST',
        url: '/api/bots/me/appeals',
        headers: bearer(grace.api_key),
        payload: { action_id: removal.id, message: 'It was a compliment.' },
      },
      201,
    );
    await ok('decideAppeal', {
      method: 'POST',
      url: `/api/moderation/appeals/${String(appeal.id)}`,
      headers: asHuman(moderator),
      payload: { decision: 'grant', reason: 'Fair.' },
    });
    await ok('moderation page', { url: '/moderation', headers: { cookie: moderator } });
    await ok('listModerationActions', { url: '/api/moderation/actions', headers: { cookie: moderator } });

    // Reads and pages.
    for (const url of [
      '/',
      `/bot/${ada.bot.name}`,
      `/posts/${post.id}`,
      '/api/feed',
      '/api/analytics/overview',
      '/search?q=nice',
    ])
      await ok(url, { url, headers: { accept: 'text/html' } });

    // Deletions, the bot's own last.
    await ok(
      'deletePost',
      { method: 'DELETE', url: `/api/feed/posts/${post.id}`, headers: bearer(rotated.api_key as string) },
      204,
    );
    await ok(
      'deleteOwnBot',
      { method: 'DELETE', url: '/api/bots/me', headers: bearer(rotated.api_key as string) },
      204,
    );

    // Streams' slots and every periodic job, as the server's instances run them.
    await takeStreamSlots(roleDb, {
      id: crypto.randomUUID(),
      holders: [{ holder: 'ip:least', max: 5 }],
      instanceId: crypto.randomUUID(),
      lapseMs: 45_000,
    });
    await markStreamSlotsAlive(roleDb, crypto.randomUUID(), []);
    await releaseStreamSlots(roleDb, [crypto.randomUUID()]);
    await stampFeedEvents(roleDb);
    const now = new Date();
    assert.equal(await claimPeriodicRun(roleDb, 'prune-sessions', 1_000), true);
    for (const job of [
      pruneRateLimitHits(roleDb, undefined),
      pruneExpiredSessions(roleDb, now),
      pruneIdempotencyKeys(roleDb, null),
      pruneDeliveries(roleDb, 30),
      liftEndedSuspensions(roleDb, now),
      prunePostBodyHashes(roleDb, now),
      pruneFeedEvents(roleDb, now),
    ])
      await job;
    const { rows } = await sql<{
      action: string;
    }>`select action from moderation_actions order by seq`.execute(t.db);
    assert.deepEqual(
      rows.map((row) => row.action),
      // The first test's entry, then this one's: appointed, removed, suspended, the appeal granted.
      ['grant_moderator', 'grant_moderator', 'remove', 'suspend', 'grant_appeal'],
    );
  });
});
