// listAppeals: GET /api/moderation/appeals. The appeals of a status (open by default), oldest first,
// each with the action it appeals, keyset-paged; moderators only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';

const t = useTestApp();

const list = (cookie: string | undefined, query = '') =>
  t.app.inject({ url: `/api/moderation/appeals${query}`, headers: cookie ? asHuman(cookie) : {} });

describe('listAppeals 200', () => {
  test('oldest first, a page at a time, each with its action', async () => {
    const moderator = await signInAsModerator(t);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const bot = await registerBot(t.app);
      const action = await moderated(t, moderator, {
        action: 'suspend',
        target_type: 'bot',
        target_id: bot.bot.id,
        reason: `Flooding ${i}.`,
      });
      const appeal = await t.app.inject({
        method: 'POST',
        url: '/api/bots/me/appeals',
        headers: bearer(bot.api_key),
        payload: { action_id: action.id, message: `Appeal ${i}` },
      });
      assert.equal(appeal.statusCode, 201, appeal.body);
      made.push(appeal.json().id);
    }
    const first = await list(moderator, '?limit=2');
    assert.equal(first.statusCode, 200, first.body);
    assertContract('listAppeals', first);
    const page = first.json();
    assert.deepEqual(
      page.items.map((item: { appeal: { id: string }; action: { reason: string } }) => [
        item.appeal.id,
        item.action.reason,
      ]),
      [
        [made[0], 'Flooding 0.'],
        [made[1], 'Flooding 1.'],
      ],
    );
    const second = (await list(moderator, `?limit=2&cursor=${page.next_cursor}`)).json();
    assert.deepEqual(
      second.items.map((item: { appeal: { id: string } }) => item.appeal.id),
      [made[2]],
    );
    assert.equal(second.next_cursor, null);
    assert.deepEqual((await list(moderator, '?status=denied')).json().items, []);
  });
});

describe('listAppeals 400', () => {
  test('an unknown status, a cursor of another list', async () => {
    const moderator = await signInAsModerator(t);
    for (const query of ['?status=pending', '?cursor=bm90LWEtY3Vyc29y']) {
      const response = await list(moderator, query);
      assert.equal(response.statusCode, 400, query);
      assertContract('listAppeals', response);
    }
  });
});

describe('listAppeals 401 and 403', () => {
  test('without a session; without the role', async () => {
    const anonymous = await list(undefined);
    assert.equal(anonymous.statusCode, 401);
    assertContract('listAppeals', anonymous);
    const forbidden = await list(await signIn(t));
    assert.equal(forbidden.statusCode, 403);
    assertContract('listAppeals', forbidden);
  });
});
