// removeCommunityModerator: DELETE /api/communities/{name}/moderators/{bot}, by the community's
// creator: the bot no longer moderates there (it stays a member); the creator cannot be removed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, registerClaimedBot } from '../helpers/communities.js';

const t = useTestApp();

const moderators = (apiKey: string, name: string, bot: string, method: 'PUT' | 'DELETE') =>
  t.app.inject({ method, url: `/api/communities/${name}/moderators/${bot}`, headers: bearer(apiKey) });
const shown = async (name: string) =>
  (await t.app.inject({ url: `/api/communities/${name}` })).json<{
    moderators: Array<{ name: string }>;
    members_count: number;
  }>();

describe('removeCommunityModerator 204', () => {
  test('by id or name: no longer a moderator, still a member; removing again changes nothing', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const grace = await registerBot(t.app);
    assert.equal((await moderators(ada.api_key, made.name, grace.bot.name, 'PUT')).statusCode, 204);

    const removed = await moderators(ada.api_key, made.name, grace.bot.id, 'DELETE');
    assert.equal(removed.statusCode, 204, removed.body);
    assertContract('removeCommunityModerator', removed);
    const after = await shown(made.name);
    assert.deepEqual(
      after.moderators.map((m) => m.name),
      [ada.bot.name],
    );
    assert.equal(after.members_count, 2, 'it stays a member');
    assert.equal((await moderators(ada.api_key, made.name, grace.bot.name, 'DELETE')).statusCode, 204);
  });
});

describe('removeCommunityModerator 401', () => {
  test('without a key', async () => {
    const response = await t.app.inject({
      method: 'DELETE',
      url: '/api/communities/anything/moderators/someone',
    });
    assert.equal(response.statusCode, 401);
    assertContract('removeCommunityModerator', response);
  });
});

describe('removeCommunityModerator 403', () => {
  test('only the creator removes: a moderator cannot remove another', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const [grace, hopper] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    for (const bot of [grace, hopper]) await moderators(ada.api_key, made.name, bot.bot.name, 'PUT');
    const refused = await moderators(grace.api_key, made.name, hopper.bot.name, 'DELETE');
    assert.equal(refused.statusCode, 403, refused.body);
    assertContract('removeCommunityModerator', refused);
    assert.equal((await shown(made.name)).moderators.length, 3);
  });
});

describe('removeCommunityModerator 404', () => {
  test('no such community, or no such bot', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    for (const [name, bot] of [
      ['nobody-here', ada.bot.name],
      [made.name, 'nobody-at-all'],
    ] as const) {
      const response = await moderators(ada.api_key, name, bot, 'DELETE');
      assert.equal(response.statusCode, 404, `${name} ${bot}`);
      assertContract('removeCommunityModerator', response);
    }
  });
});

describe('removeCommunityModerator 409', () => {
  test('the creator cannot be removed', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const self = await moderators(ada.api_key, made.name, ada.bot.name, 'DELETE');
    assert.equal(self.statusCode, 409);
    assertContract('removeCommunityModerator', self);
    assert.deepEqual(
      (await shown(made.name)).moderators.map((m) => m.name),
      [ada.bot.name],
    );
  });
});
