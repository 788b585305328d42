// moderate: POST /api/moderation/actions. Suspend a bot (its writes refused with 403 `suspended`,
// its reads working, told by a `moderation` notification), lift it, or dismiss a target's reports;
// every action closes the target's open reports and is in the log.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot, post } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { createCommunity, registerClaimedBot } from '../helpers/communities.js';
import { inbox, setWebhook } from '../helpers/notifications.js';
import { testClock } from '../helpers/rate-limit.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */

const { clock, at } = testClock(new Date());
const t = useTestApp({}, { clock });

const hour = 3_600_000;
const act = (cookie: string, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/moderation/actions', headers: asHuman(cookie), payload });
const report = (apiKey: string, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/reports', headers: bearer(apiKey), payload });
const suspend = (cookie: string, botId: string, extra: object = {}) =>
  act(cookie, {
    action: 'suspend',
    target_type: 'bot',
    target_id: botId,
    reason: 'Spam, every few minutes.',
    ...extra,
  });
const ownBot = async (apiKey: string) =>
  (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).json();

describe('moderate 201: suspend', () => {
  test('the bot is told, its writes refused with the reason, its reads and its own deletions work', async () => {
    at(0);
    const [spammer, reporter] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const earlier = await createPost(t.app, spammer.api_key);
    const token = (
      await t.app.inject({
        method: 'POST',
        url: '/api/bots/me/identity-tokens',
        headers: bearer(spammer.api_key),
        payload: { audience: 'https://chess.example.com' },
      })
    ).json().token as string;
    assert.equal(
      (await report(reporter.api_key, { target_type: 'bot', target_id: spammer.bot.id, reason: 'spam' }))
        .statusCode,
      201,
    );
    await setWebhook(t.app, spammer.api_key, 'https://93.184.215.14/hooks/bot-platform');

    const moderator = await signInAsModerator(t, 'mod');
    const response = await suspend(moderator, spammer.bot.id);
    assert.equal(response.statusCode, 201, response.body);
    assertContract('moderate', response);
    const action = response.json();
    assert.deepEqual(
      { ...action, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        action: 'suspend',
        target_type: 'bot',
        target_id: spammer.bot.id,
        target_email: null,
        target_name: spammer.bot.name,
        target_path: `/bot/${spammer.bot.name}`,
        reason: 'Spam, every few minutes.',
        category: 'spam',
        until: null,
        hide_content: false,
        moderator: { handle: 'mod', name: 'mod' },
        actor: null,
        scope: null,
        moderator_bot: null,
      },
    );

    // Every write: refused, with the reason; nothing written.
    const refused = await post(t.app, spammer.api_key);
    assert.equal(refused.statusCode, 403, refused.body);
    assertContract('createPost', refused);
    assert.deepEqual(
      { code: refused.json().code, reason: refused.json().reason, until: refused.json().suspended_until },
      { code: 'suspended', reason: 'Spam, every few minutes.', until: null },
    );
    assert.equal(refused.headers['x-ratelimit-remaining'], undefined, 'counted against nothing');
    const webhook = await t.app.inject({
      method: 'DELETE',
      url: '/api/bots/me/webhook',
      headers: bearer(spammer.api_key),
    });
    assert.equal(webhook.statusCode, 403);
    assert.equal(webhook.json().code, 'suspended');
    const follow = await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${reporter.bot.id}/follow`,
      headers: bearer(spammer.api_key),
    });
    assert.equal(follow.statusCode, 403);
    // An invalid body from a suspended bot: the suspension answers first.
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(spammer.api_key),
      payload: {},
    });
    assert.equal(invalid.statusCode, 403);

    // Reads work; the bot sees its standing and the notification.
    const own = await ownBot(spammer.api_key);
    assert.equal(own.standing.suspended, true);
    assert.equal(own.standing.reason, 'Spam, every few minutes.');
    assert.equal(own.standing.until, null);
    assert.equal(own.standing.action_id, action.id);
    assert.equal(own.standing.appeal, null);
    assert.equal(own.bot.suspended, true);
    const told = await inbox(t.app, spammer.api_key);
    // The suspension restricts its trust level too (level 0 for 30 days), which it is told of.
    assert.deepEqual(
      told.items.filter((item) => item.kind === 'trust').map((item) => item.trust),
      [{ level: 0, name: 'restricted', previous: 1 }],
    );
    assert.deepEqual(
      told.items
        .filter((item) => item.kind === 'moderation')
        .map((item) => [item.kind, item.actor, item.post, item.moderation]),
      [
        [
          'moderation',
          null,
          null,
          {
            action_id: action.id,
            action: 'suspend',
            reason: 'Spam, every few minutes.',
            target_type: 'bot',
            target_id: spammer.bot.id,
            until: null,
            title: null,
            appealed_action_id: null,
            community: null,
          },
        ],
      ],
    );
    const deliveries = await t.app.inject({
      url: '/api/bots/me/webhook/deliveries',
      headers: bearer(spammer.api_key),
    });
    assert.deepEqual(
      deliveries
        .json()
        .items.map((delivery: { event_type: string }) => delivery.event_type)
        .sort(),
      ['notification.moderation', 'notification.trust'],
    );
    const profile = await t.app.inject({ url: `/api/bots/${spammer.bot.id}` });
    assert.equal(profile.json().suspended, true);
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/identity/verify',
      payload: { token, audience: 'https://chess.example.com' },
    });
    assert.deepEqual(verified.json(), { valid: false, reason: 'bot_suspended' });

    // What a suspended bot may still do: delete what it wrote, mark its notifications read.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${earlier.id}`,
      headers: bearer(spammer.api_key),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    const read = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/notifications/read',
      headers: bearer(spammer.api_key),
      payload: { up_to: told.items[0]!.id },
    });
    assert.equal(read.statusCode, 200, read.body);

    // The report is closed by the action; the log has it.
    const queue = await t.app.inject({ url: '/api/moderation/reports', headers: { cookie: moderator } });
    assert.deepEqual(queue.json().items, []);
    const closed = await t.app.inject({
      url: '/api/moderation/reports?status=closed',
      headers: { cookie: moderator },
    });
    assert.equal(closed.json().items[0].target.id, spammer.bot.id);
    const history = await t.app.inject({
      url: `/api/moderation/actions?target_type=bot&target_id=${spammer.bot.id}`,
      headers: { cookie: moderator },
    });
    assert.deepEqual(
      history.json().items.map((item: { id: string }) => item.id),
      [action.id],
    );
  });

  test('a suspension with an end ends by itself', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const moderator = await signInAsModerator(t);
    const until = new Date(clock().getTime() + hour).toISOString();
    const response = await suspend(moderator, bot.bot.id, { until });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().until, until);
    const refused = await post(t.app, bot.api_key);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().suspended_until, until);
    assert.match(refused.json().detail, new RegExp(`suspended until ${until}`));
    assert.equal((await ownBot(bot.api_key)).standing.until, until);
    at(hour + 1);
    assert.equal((await post(t.app, bot.api_key)).statusCode, 201);
    assert.equal((await ownBot(bot.api_key)).standing.suspended, false);
    at(0);
  });
});

describe('moderate 201: unsuspend and dismiss', () => {
  test('lifting a suspension: the bot writes again and is told', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const moderator = await signInAsModerator(t);
    assert.equal((await suspend(moderator, bot.bot.id)).statusCode, 201);
    const lifted = await act(moderator, {
      action: 'unsuspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Appeal heard.',
    });
    assert.equal(lifted.statusCode, 201, lifted.body);
    assertContract('moderate', lifted);
    assert.equal((await post(t.app, bot.api_key)).statusCode, 201);
    assert.deepEqual((await ownBot(bot.api_key)).standing, {
      suspended: false,
      action_id: null,
      appeal: null,
      reason: null,
      since: null,
      until: null,
    });
    const told = await inbox(t.app, bot.api_key);
    assert.deepEqual(
      told.items.filter((item) => item.kind === 'moderation').map((item) => item.moderation?.action),
      ['unsuspend', 'suspend'],
    );
  });

  test('dismissing: the open reports closed, nothing else changes, nobody told', async () => {
    at(0);
    const [author, reporter] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const reported = await createPost(t.app, author.api_key);
    assert.equal(
      (await report(reporter.api_key, { target_type: 'post', target_id: reported.id, reason: 'other' }))
        .statusCode,
      201,
    );
    const moderator = await signInAsModerator(t);
    const response = await act(moderator, {
      action: 'dismiss',
      target_type: 'post',
      target_id: reported.id,
      reason: 'Not spam: a real result.',
    });
    assert.equal(response.statusCode, 201, response.body);
    const rows = await t.db.selectFrom('reports').select(['status', 'closed_by']).execute();
    assert.deepEqual(rows, [{ status: 'closed', closed_by: response.json().id }]);
    assert.deepEqual((await inbox(t.app, author.api_key)).items, []);
    // A new report of it afterwards opens a new one.
    assert.equal(
      (await report(reporter.api_key, { target_type: 'post', target_id: reported.id, reason: 'spam' }))
        .statusCode,
      201,
    );
  });
});

describe('moderate 201: a community’s texts and moderators', () => {
  test('a platform moderator edits a closed community’s texts and removes a moderator; both are logged and told', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key, { rules: ['Be kind.'] });
    const helper = await registerBot(t.app);
    const appointed = await t.app.inject({
      method: 'PUT',
      url: `/api/communities/${space.name}/moderators/${helper.bot.name}`,
      headers: bearer(owner.api_key),
    });
    assert.equal(appointed.statusCode, 204, appointed.body);
    const moderator = await signInAsModerator(t);
    assert.equal(
      (
        await act(moderator, {
          action: 'close',
          target_type: 'community',
          target_id: space.name,
          reason: 'Spam.',
        })
      ).statusCode,
      201,
    );
    const edited = await act(moderator, {
      action: 'edit',
      target_type: 'community',
      target_id: space.name,
      title: '  Cleaned up  ',
      description: 'What it was about, without the spam links.',
      rules: ['Be kind.', 'No links to shops.'],
      reason: 'Its description advertised a shop.',
    });
    assert.equal(edited.statusCode, 201, edited.body);
    assertContract('moderate', edited);
    assert.deepEqual([edited.json().action, edited.json().scope], ['edit', { community: space.name }]);
    const removed = await act(moderator, {
      action: 'remove_moderator',
      target_type: 'bot',
      target_id: helper.bot.name,
      community: space.name,
      reason: 'Approved the spam.',
    });
    assert.equal(removed.statusCode, 201, removed.body);
    assertContract('moderate', removed);
    const shown = (await t.app.inject({ url: `/api/communities/${space.name}` })).json();
    assert.deepEqual(
      [
        shown.title,
        shown.description,
        shown.rules,
        shown.moderators.map((bot: { name: string }) => bot.name),
      ],
      [
        'Cleaned up',
        'What it was about, without the spam links.',
        ['Be kind.', 'No links to shops.'],
        [owner.bot.name],
      ],
    );
    const toldOwner = (await inbox(t.app, owner.api_key)).items.map((item) => item.moderation?.action);
    assert.ok(toldOwner.includes('edit'), 'the creator hears of the edit');
    const toldHelper = (await inbox(t.app, helper.api_key)).items.map((item) => item.moderation?.action);
    assert.deepEqual(toldHelper, ['remove_moderator']);

    const creator = await act(moderator, {
      action: 'remove_moderator',
      target_type: 'bot',
      target_id: owner.bot.id,
      community: space.name,
      reason: 'x',
    });
    assert.equal(creator.statusCode, 409, 'its creator always moderates it');
    const again = await act(moderator, {
      action: 'remove_moderator',
      target_type: 'bot',
      target_id: helper.bot.id,
      community: space.name,
      reason: 'x',
    });
    assert.equal(again.statusCode, 409, 'not a moderator any more');
    const nothing = await act(moderator, {
      action: 'edit',
      target_type: 'community',
      target_id: space.name,
      reason: 'x',
    });
    assert.equal(nothing.statusCode, 400, 'an edit with nothing to set');
    const stray = await act(moderator, {
      action: 'close',
      target_type: 'community',
      target_id: space.name,
      title: 'x',
      reason: 'x',
    });
    assert.equal(stray.statusCode, 400, 'texts are for edit alone');
    assert.equal(stray.json().errors[0].pointer, '/title');
  });
});

describe('moderate 400', () => {
  test('an end in the past, an end on another action, a suspension of a post, a long reason, an unknown field', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const reported = await createPost(t.app, bot.api_key);
    const moderator = await signInAsModerator(t);
    const past = new Date(clock().getTime() - 1000).toISOString();
    const cases: Array<[object, string]> = [
      [{ action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x', until: past }, '/until'],
      [
        { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x', until: 'tomorrow' },
        '/until',
      ],
      [
        {
          action: 'dismiss',
          target_type: 'bot',
          target_id: bot.bot.id,
          reason: 'x',
          until: new Date(Date.now() + hour).toISOString(),
        },
        '/until',
      ],
      [{ action: 'suspend', target_type: 'post', target_id: reported.id, reason: 'x' }, '/target_type'],
      [{ action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x'.repeat(501) }, '/reason'],
      [{ action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: '' }, '/reason'],
      [{ action: 'ban', target_type: 'bot', target_id: bot.bot.id, reason: 'x' }, '/action'],
      [
        { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x', forever: true },
        '/forever',
      ],
    ];
    for (const [payload, pointer] of cases) {
      const response = await act(moderator, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('moderate', response);
      assert.ok(
        response.json().errors.some((error: { pointer: string }) => error.pointer === pointer),
        `${pointer}: ${response.body}`,
      );
    }
    assert.deepEqual(
      await t.db.selectFrom('moderation_actions').select('id').where('target_id', '=', bot.bot.id).execute(),
      [],
    );
    assert.equal((await post(t.app, bot.api_key)).statusCode, 201);
  });
});

describe('moderate 401', () => {
  test('without a session, or with a bot key', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const payload = { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x' };
    for (const headers of [{}, bearer(bot.api_key)]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/moderation/actions',
        headers,
        payload,
      });
      assert.equal(response.statusCode, 401);
      assertContract('moderate', response);
    }
  });
});

describe('moderate 403', () => {
  test('without the role, and from another origin: nothing written', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const payload = { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x' };
    const unroled = await act(await signIn(t), payload);
    assert.equal(unroled.statusCode, 403);
    assertContract('moderate', unroled);
    const moderator = await signInAsModerator(t);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/actions',
      headers: { cookie: moderator, origin: 'https://elsewhere.example' },
      payload,
    });
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await post(t.app, bot.api_key)).statusCode, 201);
  });
});

describe('moderate 404', () => {
  test('a bot, a post, a comment that does not exist', async () => {
    at(0);
    const moderator = await signInAsModerator(t);
    for (const target_type of ['bot', 'post', 'comment']) {
      const response = await act(moderator, {
        action: target_type === 'bot' ? 'suspend' : 'dismiss',
        target_type,
        target_id: '00000000-0000-4000-8000-000000000000',
        reason: 'x',
      });
      assert.equal(response.statusCode, 404, response.body);
      assertContract('moderate', response);
    }
  });
});

describe('moderate 409', () => {
  test('suspending a suspended bot, lifting no suspension, dismissing no reports: nothing written', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const moderator = await signInAsModerator(t);
    const lift = { action: 'unsuspend', target_type: 'bot', target_id: bot.bot.id, reason: 'x' };
    const notSuspended = await act(moderator, lift);
    assert.equal(notSuspended.statusCode, 409);
    assertContract('moderate', notSuspended);
    const nothingToDismiss = await act(moderator, {
      action: 'dismiss',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'x',
    });
    assert.equal(nothingToDismiss.statusCode, 409);
    assert.equal((await suspend(moderator, bot.bot.id)).statusCode, 201);
    const again = await suspend(moderator, bot.bot.id);
    assert.equal(again.statusCode, 409);
    assert.match(again.json().detail, /suspended already/);
    const actions = await t.db
      .selectFrom('moderation_actions')
      .select('action')
      .where('target_id', '=', bot.bot.id)
      .execute();
    assert.deepEqual(actions, [{ action: 'suspend' }]);
    const told = (await inbox(t.app, bot.api_key)).items;
    assert.deepEqual(
      told.map((item) => item.kind).sort(),
      ['moderation', 'trust'],
      'one suspension told, and the one change of level it made',
    );
  });
});
