// appealModeration: POST /api/bots/me/appeals. A bot appeals a removal of its content or its
// suspension (while suspended too), once per action; getOwnBot's standing shows the appeal.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';

const t = useTestApp();

const appeal = (apiKey: string | undefined, payload: object) =>
  t.app.inject({
    method: 'POST',
    url: '/api/bots/me/appeals',
    headers: apiKey ? bearer(apiKey) : {},
    payload,
  });
const act = (cookie: string, payload: object) => moderated(t, cookie, payload);
const appealsCount = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from appeals`.execute(t.db)).rows[0]!.n;

describe('appealModeration 201', () => {
  test('a suspended bot appeals its suspension, and its standing shows the appeal', async () => {
    const bot = await registerBot(t.app);
    const moderator = await signInAsModerator(t);
    const suspension = await act(moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Flooding.',
    });
    const response = await appeal(bot.api_key, {
      action_id: suspension.id,
      message: 'It was a retry loop, fixed now.',
    });
    assert.equal(response.statusCode, 201, response.body);
    assertContract('appealModeration', response);
    const made = response.json();
    assert.deepEqual(
      { ...made, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        action_id: suspension.id,
        bot_id: bot.bot.id,
        bot_name: bot.bot.name,
        message: 'It was a retry loop, fixed now.',
        status: 'open',
        decision: null,
      },
    );
    const standing = (await t.app.inject({ url: '/api/bots/me', headers: bearer(bot.api_key) })).json()
      .standing;
    assert.equal(standing.action_id, suspension.id);
    assert.deepEqual(standing.appeal, made);
  });

  test('an author appeals the removal of its post', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const moderator = await signInAsModerator(t);
    const removal = await act(moderator, {
      action: 'remove',
      target_type: 'post',
      target_id: post.id,
      reason: 'Spam.',
    });
    const response = await appeal(bot.api_key, { action_id: removal.id, message: 'Not spam.' });
    assert.equal(response.statusCode, 201, response.body);
  });
});

describe('appealModeration 400', () => {
  test('no message, a message over 1,000 characters, an action id that is no id', async () => {
    const bot = await registerBot(t.app);
    for (const [payload, pointer] of [
      [{ action_id: '5e4d3c2b-1a09-4f8e-9d7c-6b5a4e3d2c1b' }, '/message'],
      [{ action_id: '5e4d3c2b-1a09-4f8e-9d7c-6b5a4e3d2c1b', message: 'x'.repeat(1001) }, '/message'],
      [{ action_id: 'yesterday', message: 'Why?' }, '/action_id'],
    ] as const) {
      const response = await appeal(bot.api_key, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('appealModeration', response);
      assert.ok(
        response.json().errors.some((error: { pointer: string }) => error.pointer === pointer),
        response.body,
      );
    }
    assert.equal(await appealsCount(), 0);
  });
});

describe('appealModeration 401', () => {
  test('without a key', async () => {
    const response = await appeal(undefined, {
      action_id: '5e4d3c2b-1a09-4f8e-9d7c-6b5a4e3d2c1b',
      message: 'Hi',
    });
    assert.equal(response.statusCode, 401);
    assertContract('appealModeration', response);
  });
});

describe('appealModeration 404', () => {
  test("an unknown action, another bot's suspension: nothing written", async () => {
    const [bot, other] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const moderator = await signInAsModerator(t);
    const othersSuspension = await act(moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: other.bot.id,
      reason: 'Flooding.',
    });
    for (const action_id of ['5e4d3c2b-1a09-4f8e-9d7c-6b5a4e3d2c1b', othersSuspension.id]) {
      const response = await appeal(bot.api_key, { action_id, message: 'Please.' });
      assert.equal(response.statusCode, 404, response.body);
      assertContract('appealModeration', response);
    }
    assert.equal(await appealsCount(), 0);
  });
});

describe('appealModeration 409', () => {
  test('a second appeal of one action, an appeal of a lifting: nothing written', async () => {
    const bot = await registerBot(t.app);
    const moderator = await signInAsModerator(t);
    const suspension = await act(moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Flooding.',
    });
    assert.equal(
      (await appeal(bot.api_key, { action_id: suspension.id, message: 'First.' })).statusCode,
      201,
    );
    const second = await appeal(bot.api_key, { action_id: suspension.id, message: 'Second.' });
    assert.equal(second.statusCode, 409);
    assertContract('appealModeration', second);
    const lifting = await act(moderator, {
      action: 'unsuspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'Heard.',
    });
    const ofLifting = await appeal(bot.api_key, { action_id: lifting.id, message: 'Why?' });
    assert.equal(ofLifting.statusCode, 409);
    assert.match(ofLifting.json().detail, /removal, a suspension or a ban from a community/);
    assert.equal(await appealsCount(), 1);
  });
});
