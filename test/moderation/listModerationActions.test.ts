// listModerationActions: GET /api/moderation/actions. The append-only log, newest first; role
// grants and revocations are in it; the database refuses to edit or delete an entry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { grantModeratorRole, revokeModeratorRole } from '../../src/moderation/repository/roles.js';

const t = useTestApp();

const log = (cookie: string, query = '') =>
  t.app.inject({ url: `/api/moderation/actions${query}`, headers: { cookie } });

describe('listModerationActions 200', () => {
  test('grants and revocations, newest first, paged', async () => {
    const moderator = await signInAsModerator(t, 'mod');
    assert.equal(
      await grantModeratorRole(t.db, { email: 'ada@example.com', actor: 'ops', reason: 'Appointed.' }),
      true,
    );
    assert.equal(
      await grantModeratorRole(t.db, { email: 'ada@example.com', actor: 'ops', reason: 'Again.' }),
      false,
    );
    assert.equal(
      await revokeModeratorRole(t.db, { email: 'ada@example.com', actor: 'ops', reason: 'Stepped down.' }),
      true,
    );
    assert.equal(
      await revokeModeratorRole(t.db, { email: 'ada@example.com', actor: 'ops', reason: 'Again.' }),
      false,
    );

    const response = await log(moderator);
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listModerationActions', response);
    const items = response.json().items as Array<Record<string, unknown>>;
    assert.deepEqual(
      items.map(({ action, target_type, target_id, target_email, reason, moderator, actor }) => ({
        action,
        target_type,
        target_id,
        target_email,
        reason,
        moderator,
        actor,
      })),
      [
        {
          action: 'revoke_moderator',
          target_type: 'human',
          target_id: null,
          target_email: 'ada@example.com',
          reason: 'Stepped down.',
          moderator: null,
          actor: 'ops',
        },
        {
          action: 'grant_moderator',
          target_type: 'human',
          target_id: null,
          target_email: 'ada@example.com',
          reason: 'Appointed.',
          moderator: null,
          actor: 'ops',
        },
        {
          action: 'grant_moderator',
          target_type: 'human',
          target_id: null,
          target_email: items[2]!.target_email,
          reason: 'a test needs one',
          moderator: null,
          actor: 'test',
        },
      ],
    );
    const first = (await log(moderator, '?limit=2')).json();
    assert.equal(first.items.length, 2);
    const rest = (await log(moderator, `?limit=2&cursor=${first.next_cursor}`)).json();
    assert.deepEqual(
      rest.items.map((item: { id: string }) => item.id),
      [items[2]!.id],
    );
    assert.equal(rest.next_cursor, null);
    const humans = (await log(moderator, '?target_type=human')).json();
    assert.equal(humans.items.length, 3);
    assert.deepEqual((await log(moderator, '?target_type=post')).json().items, []);
  });
});

describe('listModerationActions 200: filtered, and what a person reads of each target', () => {
  test('by action and by moderator (handle or actor); each entry names its target and its page, or says it is gone', async () => {
    const ada = await signInAsModerator(t, 'ada-mod');
    const bea = await signInAsModerator(t, 'bea-mod');
    const [author, spammer] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, author.api_key, { title: 'A lighthouse keeper' });
    const gone = await createPost(t.app, author.api_key, { title: 'Soon deleted' });
    const act = async (cookie: string, payload: object) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/moderation/actions',
        headers: asHuman(cookie),
        payload,
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<{ id: string; target_name: string | null; target_path: string | null }>();
    };
    const reported = await t.app.inject({
      method: 'POST',
      url: '/api/reports',
      headers: bearer(spammer.api_key),
      payload: { target_type: 'post', target_id: gone.id, reason: 'spam' },
    });
    assert.equal(reported.statusCode, 201, reported.body);
    const removal = await act(ada, {
      action: 'remove',
      target_type: 'post',
      target_id: post.id,
      reason: 'Spam.',
    });
    assert.equal(removal.target_name, 'A lighthouse keeper', 'moderate answers the names too');
    assert.equal(removal.target_path, `/posts/${post.id}`);
    await act(bea, { action: 'suspend', target_type: 'bot', target_id: spammer.bot.id, reason: 'Flooding.' });
    await act(bea, { action: 'dismiss', target_type: 'post', target_id: gone.id, reason: 'Fine.' });
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${gone.id}`,
      headers: bearer(author.api_key),
    });
    assert.equal(deleted.statusCode, 204);

    const byAda = await log(ada, '?moderator=@ADA-mod');
    assert.equal(byAda.statusCode, 200, byAda.body);
    assertContract('listModerationActions', byAda);
    assert.deepEqual(
      byAda
        .json()
        .items.map((item: Record<string, unknown>) => [item.action, item.target_name, item.target_path]),
      [['remove', 'A lighthouse keeper', `/posts/${post.id}`]],
      'a removed post is named as its removal kept it',
    );
    const suspensions = await log(ada, '?action=suspend&moderator=bea-mod');
    assert.deepEqual(
      suspensions.json().items.map((item: Record<string, unknown>) => [item.target_name, item.target_path]),
      [[spammer.bot.name, `/bot/${spammer.bot.name}`]],
    );
    const dismissed = await log(ada, '?action=dismiss&moderator=bea-mod');
    assert.deepEqual(
      dismissed.json().items.map((item: Record<string, unknown>) => [item.target_name, item.target_path]),
      [[null, null]],
      'a post its author deleted since: gone',
    );
    // A moderator without a handle, by the name the log shows them: the operator's, else the address's.
    const email = `mo-${Date.now()}@example.com`;
    await grantModeratorRole(t.db, {
      email,
      actor: 'test',
      reason: 'a named moderator',
      displayName: 'Mo (night)',
    });
    const mo = await signIn(t, email);
    await act(mo, { action: 'unsuspend', target_type: 'bot', target_id: spammer.bot.id, reason: 'Enough.' });
    for (const name of ['Mo (night)', 'mo (NIGHT)']) {
      const byName = await log(ada, `?moderator=${encodeURIComponent(name)}`);
      assert.deepEqual(
        byName
          .json()
          .items.map((item: { action: string; moderator: { name: string } }) => [
            item.action,
            item.moderator.name,
          ]),
        [['unsuspend', 'Mo (night)']],
        name,
      );
    }
    const byActor = await log(ada, '?moderator=test&action=grant_moderator');
    assert.ok(byActor.json().items.length >= 2, 'the CLI’s grants, by its actor');
    assert.equal((await log(ada, '?action=promote')).statusCode, 400);
  });
});

describe('the log is append-only', () => {
  test('the database refuses UPDATE and DELETE on it, whoever asks', async () => {
    await grantModeratorRole(t.db, { email: 'grace@example.com', actor: 'ops', reason: 'Appointed.' });
    await assert.rejects(
      sql`update moderation_actions set reason = 'rewritten'`.execute(t.db),
      /append-only: UPDATE refused/,
    );
    await assert.rejects(sql`delete from moderation_actions`.execute(t.db), /append-only: DELETE refused/);
    const rows = await t.db.selectFrom('moderation_actions').select('reason').execute();
    assert.deepEqual(rows, [{ reason: 'Appointed.' }]);
  });
});

describe('listModerationActions 400', () => {
  test('target_id without target_type, an unknown type, a bad id, a forged cursor', async () => {
    const moderator = await signInAsModerator(t);
    for (const query of [
      '?target_id=00000000-0000-4000-8000-000000000000',
      '?target_type=webhook',
      '?target_type=bot&target_id=ada',
      '?cursor=bm90LWEtY3Vyc29y',
    ]) {
      const response = await log(moderator, query);
      assert.equal(response.statusCode, 400, query);
      assertContract('listModerationActions', response);
    }
  });
});

describe('listModerationActions 401', () => {
  test('no session, or a bot key', async () => {
    const bot = await registerBot(t.app);
    const none = await t.app.inject({ url: '/api/moderation/actions' });
    assert.equal(none.statusCode, 401);
    assertContract('listModerationActions', none);
    assert.equal(
      (await t.app.inject({ url: '/api/moderation/actions', headers: bearer(bot.api_key) })).statusCode,
      401,
    );
  });
});

describe('listModerationActions 403', () => {
  test('a session without the role', async () => {
    const forbidden = await log(await signIn(t));
    assert.equal(forbidden.statusCode, 403);
    assertContract('listModerationActions', forbidden);
  });
});
