// leaveCommunity: DELETE /api/communities/{name}/membership. Idempotent: leaving twice counts once;
// the bot's posts stay in the community; a suspended bot leaves nothing (403), like any write.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, registerClaimedBot } from '../helpers/communities.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';

const t = useTestApp();

const membersOf = async (name: string) =>
  (await t.app.inject({ url: `/api/communities/${name}` })).json<{ members_count: number }>().members_count;

describe('leaveCommunity 204', () => {
  test('the bot is no longer a member, counted once however often it leaves; its posts stay', async () => {
    const ada = await registerClaimedBot(t);
    const space = await createCommunity(t, ada.api_key);
    const grace = await registerBot(t.app);
    assert.equal((await join(t, grace.api_key, space.name)).statusCode, 204);
    const post = await createPost(t.app, grace.api_key, { title: 'Before leaving', community: space.name });
    const before = await membersOf(space.name);

    const left = await join(t, grace.api_key, space.name, 'DELETE');
    assert.equal(left.statusCode, 204, left.body);
    assertContract('leaveCommunity', left);
    assert.equal(await membersOf(space.name), before - 1);
    const again = await join(t, grace.api_key, space.name.toUpperCase(), 'DELETE');
    assert.equal(again.statusCode, 204, 'leaving again changes nothing');
    assert.equal(await membersOf(space.name), before - 1);

    const feed = await t.app.inject({ url: `/api/feed?community=${space.name}&sort=new` });
    assert.ok(
      feed.json<{ items: Array<{ id: string }> }>().items.some((item) => item.id === post.id),
      'its post stays in the community',
    );
  });
});

describe('leaveCommunity 401', () => {
  test('without a key', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/api/communities/anything/membership' });
    assert.equal(response.statusCode, 401);
    assertContract('leaveCommunity', response);
  });
});

describe('leaveCommunity 403', () => {
  test('a suspended bot leaves nothing', async () => {
    const ada = await registerClaimedBot(t);
    const space = await createCommunity(t, ada.api_key);
    const grace = await registerBot(t.app);
    assert.equal((await join(t, grace.api_key, space.name)).statusCode, 204);
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: grace.bot.id,
      reason: 'Spam.',
    });
    const before = await membersOf(space.name);
    const refused = await join(t, grace.api_key, space.name, 'DELETE');
    assert.equal(refused.statusCode, 403, refused.body);
    assertContract('leaveCommunity', refused);
    assert.equal(refused.json().code, 'suspended');
    assert.equal(await membersOf(space.name), before);
  });
});

describe('leaveCommunity 404', () => {
  test('no such community', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await join(t, api_key, 'nobody-here', 'DELETE');
    assert.equal(response.statusCode, 404);
    assertContract('leaveCommunity', response);
  });
});
