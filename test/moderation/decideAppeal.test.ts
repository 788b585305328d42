// decideAppeal: POST /api/moderation/appeals/{id}. A grant reverses the appealed action (restores the
// post; lifts the suspension and restores what it hid), a denial keeps it; either way the decision is
// logged and the bot told. listAppeals: the open appeals, oldest first, with what they appeal.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';
import { inbox } from '../helpers/notifications.js';

const t = useTestApp();

const act = (cookie: string, payload: object) => moderated(t, cookie, payload);
const appeal = async (apiKey: string, action_id: string) => {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/appeals',
    headers: bearer(apiKey),
    payload: { action_id, message: 'Please look again.' },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>();
};
const decide = (cookie: string, appealId: string, payload: object) =>
  t.app.inject({
    method: 'POST',
    url: `/api/moderation/appeals/${appealId}`,
    headers: asHuman(cookie),
    payload,
  });
const entries = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from moderation_actions`.execute(t.db)).rows[0]!.n;

describe('decideAppeal 200', () => {
  test('granting the appeal of a removal restores the post; the bot is told', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const moderator = await signInAsModerator(t, 'mod');
    const removal = await act(moderator, {
      action: 'remove',
      target_type: 'post',
      target_id: post.id,
      reason: 'Spam.',
    });
    const made = await appeal(bot.api_key, removal.id);

    const listed = await t.app.inject({ url: '/api/moderation/appeals', headers: asHuman(moderator) });
    assert.equal(listed.statusCode, 200, listed.body);
    assertContract('listAppeals', listed);
    assert.deepEqual(
      listed
        .json()
        .items.map((item: { appeal: { id: string }; action: { id: string } }) => [
          item.appeal.id,
          item.action.id,
        ]),
      [[made.id, removal.id]],
    );

    const granted = await decide(moderator, made.id, { decision: 'grant', reason: 'Not spam after all.' });
    assert.equal(granted.statusCode, 200, granted.body);
    assertContract('decideAppeal', granted);
    assert.equal(granted.json().status, 'granted');
    assert.equal(granted.json().decision.reason, 'Not spam after all.');
    assert.deepEqual(granted.json().decision.moderator, { handle: 'mod' });
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);
    const told = (await inbox(t.app, bot.api_key)).items;
    // The removal restricted the bot (trust level 0); the granted appeal undid that.
    assert.deepEqual(
      told.filter((item) => item.kind === 'trust').map((item) => [item.trust?.previous, item.trust?.level]),
      [
        [0, 1],
        [1, 0],
      ],
    );
    assert.deepEqual(
      told
        .filter((item) => item.kind === 'moderation')
        .map((item) => [
          item.moderation?.action,
          item.moderation?.reason,
          item.moderation?.title,
          item.moderation?.appealed_action_id,
        ]),
      [
        ['grant_appeal', 'Not spam after all.', post.title, removal.id],
        ['remove', 'Spam.', post.title, null],
      ],
    );
    const open = await t.app.inject({ url: '/api/moderation/appeals', headers: asHuman(moderator) });
    assert.deepEqual(open.json().items, []);
    const decided = await t.app.inject({
      url: '/api/moderation/appeals?status=granted',
      headers: asHuman(moderator),
    });
    assert.equal(decided.json().items.length, 1);
    await assertCountersMatchRows(t.db);
  });

  test('granting the appeal of a suspension lifts it and restores what it hid; denying keeps it', async () => {
    const [kept, freed] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, freed.api_key);
    const moderator = await signInAsModerator(t);
    const suspend = (botId: string) =>
      act(moderator, {
        action: 'suspend',
        target_type: 'bot',
        target_id: botId,
        reason: 'Flooding.',
        hide_content: true,
      });
    const keptSuspension = await suspend(kept.bot.id);
    const keptAppeal = await appeal(kept.api_key, keptSuspension.id);
    const freedAppeal = await appeal(freed.api_key, (await suspend(freed.bot.id)).id);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 410);

    const denied = await decide(moderator, keptAppeal.id, { decision: 'deny', reason: 'Still flooding.' });
    assert.equal(denied.statusCode, 200, denied.body);
    assert.equal(denied.json().status, 'denied');
    const keptStanding = (await t.app.inject({ url: '/api/bots/me', headers: bearer(kept.api_key) })).json()
      .standing;
    assert.equal(keptStanding.suspended, true);
    assert.equal(keptStanding.appeal.status, 'denied');
    const deniedNotice = (await inbox(t.app, kept.api_key)).items[0]!.moderation;
    assert.equal(deniedNotice?.action, 'deny_appeal');
    assert.equal(deniedNotice?.appealed_action_id, keptSuspension.id, 'names the action appealed');
    assert.notEqual(deniedNotice?.action_id, keptSuspension.id);

    assert.equal(
      (await decide(moderator, freedAppeal.id, { decision: 'grant', reason: 'Fair.' })).statusCode,
      200,
    );
    const freedStanding = (await t.app.inject({ url: '/api/bots/me', headers: bearer(freed.api_key) })).json()
      .standing;
    assert.equal(freedStanding.suspended, false);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);
    await assertCountersMatchRows(t.db);
  });
});

describe('decideAppeal 400', () => {
  test('an unknown decision, no reason: nothing written', async () => {
    const moderator = await signInAsModerator(t);
    const before = await entries();
    for (const payload of [{ decision: 'maybe', reason: 'Hm.' }, { decision: 'grant' }]) {
      const response = await decide(moderator, '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f', payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('decideAppeal', response);
    }
    assert.equal(await entries(), before);
  });
});

describe('decideAppeal 401 and 403', () => {
  test('without a session; without the role', async () => {
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/appeals/3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f',
      payload: { decision: 'grant', reason: 'Yes.' },
    });
    assert.equal(anonymous.statusCode, 401);
    assertContract('decideAppeal', anonymous);
    const person = await signIn(t);
    const forbidden = await decide(person, '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f', {
      decision: 'grant',
      reason: 'Yes.',
    });
    assert.equal(forbidden.statusCode, 403);
    assertContract('decideAppeal', forbidden);
    const list = await t.app.inject({ url: '/api/moderation/appeals', headers: asHuman(person) });
    assert.equal(list.statusCode, 403);
    assertContract('listAppeals', list);
  });
});

describe('decideAppeal 404 and 409', () => {
  test('an unknown appeal; an appeal decided already: nothing written', async () => {
    const bot = await registerBot(t.app);
    const moderator = await signInAsModerator(t);
    const unknown = await decide(moderator, '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f', {
      decision: 'grant',
      reason: 'Yes.',
    });
    assert.equal(unknown.statusCode, 404);
    assertContract('decideAppeal', unknown);
    const suspension = await act(moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Flooding.',
    });
    const made = await appeal(bot.api_key, suspension.id);
    assert.equal((await decide(moderator, made.id, { decision: 'deny', reason: 'No.' })).statusCode, 200);
    const before = await entries();
    const again = await decide(moderator, made.id, { decision: 'grant', reason: 'Yes.' });
    assert.equal(again.statusCode, 409);
    assertContract('decideAppeal', again);
    assert.equal(await entries(), before);
  });

  test("granting the appeal of a comment's removal while its post is removed: restore the post first", async () => {
    const [author, commenter] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, author.api_key);
    const answer = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(commenter.api_key),
      payload: { body: 'An advert.' },
    });
    const moderator = await signInAsModerator(t);
    const removal = await act(moderator, {
      action: 'remove',
      target_type: 'comment',
      target_id: answer.json().id,
      reason: 'Spam.',
    });
    await act(moderator, { action: 'remove', target_type: 'post', target_id: post.id, reason: 'Spam too.' });
    const made = await appeal(commenter.api_key, removal.id);
    const before = await entries();
    const granted = await decide(moderator, made.id, { decision: 'grant', reason: 'Fine.' });
    assert.equal(granted.statusCode, 409, granted.body);
    assert.match(granted.json().detail, /restore the post first/);
    assert.equal(await entries(), before);
  });
});
