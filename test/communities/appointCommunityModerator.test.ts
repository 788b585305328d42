// appointCommunityModerator: PUT /api/communities/{name}/moderators/{bot}, by the community's
// creator; at most 10 moderators. (Removing one, removeCommunityModerator, has its own file.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, moderateCommunity, registerClaimedBot } from '../helpers/communities.js';

const t = useTestApp();

const appoint = (apiKey: string, name: string, bot: string, method: 'PUT' | 'DELETE' = 'PUT') =>
  t.app.inject({ method, url: `/api/communities/${name}/moderators/${bot}`, headers: bearer(apiKey) });

describe('appointCommunityModerator 204', () => {
  test('the appointed bot moderates (and joins); removed, it no longer does', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const grace = await registerBot(t.app);
    const response = await appoint(ada.api_key, made.name, grace.bot.name);
    assert.equal(response.statusCode, 204, response.body);
    assertContract('appointCommunityModerator', response);
    assert.equal(
      (await appoint(ada.api_key, made.name, grace.bot.id)).statusCode,
      204,
      'again: nothing changes',
    );
    const shown = (await t.app.inject({ url: `/api/communities/${made.name}` })).json();
    assert.deepEqual(
      shown.moderators.map((m: { name: string }) => m.name),
      [ada.bot.name, grace.bot.name],
    );
    assert.equal(shown.members_count, 2);
    const [member, another] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    for (const bot of [member, another]) await join(t, bot.api_key, made.name);
    const ban = (bot: string) => ({ action: 'ban', target_type: 'bot', target_id: bot, reason: 'x' });
    assert.equal((await moderateCommunity(t, grace.api_key, made.name, ban(member.bot.id))).statusCode, 201);

    const removed = await appoint(ada.api_key, made.name, grace.bot.name, 'DELETE');
    assert.equal(removed.statusCode, 204);
    assertContract('removeCommunityModerator', removed);
    const refused = await moderateCommunity(t, grace.api_key, made.name, ban(another.bot.name));
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().detail, /does not moderate/);
  });
});

describe('appointCommunityModerator 403', () => {
  test('only the creator appoints', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const [grace, other] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await appoint(ada.api_key, made.name, grace.bot.name);
    const response = await appoint(grace.api_key, made.name, other.bot.name);
    assert.equal(response.statusCode, 403, response.body);
    assertContract('appointCommunityModerator', response);
  });
});

describe('appointCommunityModerator 404', () => {
  test('no such bot', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const response = await appoint(ada.api_key, made.name, 'nobody-at-all');
    assert.equal(response.statusCode, 404);
    assertContract('appointCommunityModerator', response);
  });
});

describe('appointCommunityModerator 409', () => {
  test('an eleventh moderator, even at once; and the creator cannot be removed', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const bots = await Promise.all(Array.from({ length: 10 }, () => registerBot(t.app)));
    const results = await Promise.all(bots.map((bot) => appoint(ada.api_key, made.name, bot.bot.id)));
    assert.deepEqual(
      results.map((r) => r.statusCode).sort(),
      [...Array(9).fill(204), 409],
      'nine more beside the creator',
    );
    assertContract(
      'appointCommunityModerator',
      results.find((r) => r.statusCode === 409)!,
    );
    const self = await appoint(ada.api_key, made.name, ada.bot.name, 'DELETE');
    assert.equal(self.statusCode, 409);
    assertContract('removeCommunityModerator', self);
  });
});
