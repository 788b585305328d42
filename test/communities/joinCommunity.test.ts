// joinCommunity and leaveCommunity: PUT and DELETE /api/communities/{name}/membership, idempotent.
// Posting into a community needs membership (403 `not_a_member`, naming joinCommunity); commenting
// and voting do not. A closed community takes no new members.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot, post, newPost } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, registerClaimedBot } from '../helpers/communities.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';

const t = useTestApp();

const inCommunity = (community: string) =>
  newPost({ title: 'In the community', body: `Posted into ${community}.`, community });
const community = async (name: string) => (await t.app.inject({ url: `/api/communities/${name}` })).json();

describe('joinCommunity 204', () => {
  test('a member posts there; joining twice counts once; leaving stops its posts', async () => {
    const ada = await registerClaimedBot(t);
    const space = await createCommunity(t, ada.api_key);
    const grace = await registerBot(t.app);

    const refused = await post(t.app, grace.api_key, inCommunity(space.name));
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'not_a_member');
    assert.match(refused.json().detail, /joinCommunity/);

    for (const _ of [1, 2]) {
      const joined = await join(t, grace.api_key, space.name.toUpperCase());
      assert.equal(joined.statusCode, 204, joined.body);
      assertContract('joinCommunity', joined);
    }
    assert.equal((await community(space.name)).members_count, 2);

    const written = await post(t.app, grace.api_key, inCommunity(space.name.toUpperCase()));
    assert.equal(written.statusCode, 201, written.body);
    assert.deepEqual(written.json().community, { name: space.name, title: space.title });
    assert.equal(written.json().pinned, false);
    assert.equal((await community(space.name)).posts_count, 1);

    const left = await join(t, grace.api_key, space.name, 'DELETE');
    assert.equal(left.statusCode, 204);
    assertContract('leaveCommunity', left);
    assert.equal(
      (await join(t, grace.api_key, space.name, 'DELETE')).statusCode,
      204,
      'again: nothing changes',
    );
    assert.equal((await community(space.name)).members_count, 1);
    assert.equal((await post(t.app, grace.api_key, inCommunity(space.name))).statusCode, 403);
    assert.equal((await community(space.name)).posts_count, 1, 'its post stays');
  });

  test('a post without a community is in the main feed only, as bots of the published platform post', async () => {
    const bot = await registerBot(t.app);
    const written = await createPost(t.app, bot.api_key);
    assert.equal(written.community, null);
    assert.equal(written.pinned, false);
  });
});

describe('joinCommunity 401', () => {
  test('without a key', async () => {
    const ada = await registerClaimedBot(t);
    const space = await createCommunity(t, ada.api_key);
    const response = await t.app.inject({ method: 'PUT', url: `/api/communities/${space.name}/membership` });
    assert.equal(response.statusCode, 401);
    assertContract('joinCommunity', response);
  });
});

describe('joinCommunity 403', () => {
  test('a closed community: no new members, no posts, no comments', async () => {
    const ada = await registerClaimedBot(t);
    const space = await createCommunity(t, ada.api_key);
    const written = await post(t.app, ada.api_key, inCommunity(space.name));
    assert.equal(written.statusCode, 201);
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'close',
      target_type: 'community',
      target_id: space.name,
      reason: 'Abandoned and full of spam.',
    });
    const grace = await registerBot(t.app);
    const refused = await join(t, grace.api_key, space.name);
    assert.equal(refused.statusCode, 403, refused.body);
    assertContract('joinCommunity', refused);
    assert.equal(refused.json().code, 'community_closed');
    assert.match(refused.json().detail, /Abandoned and full of spam/);
    const again = await post(t.app, ada.api_key, inCommunity(space.name));
    assert.equal(again.json().code, 'community_closed');
    const comment = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${written.json().id}/comment`,
      headers: bearer(grace.api_key),
      payload: { body: 'Too late.' },
    });
    assert.equal(comment.statusCode, 403, comment.body);
    assert.equal(comment.json().code, 'community_closed');
    const shown = await community(space.name);
    assert.equal(shown.status, 'closed');
    assert.equal(shown.closed_reason, 'Abandoned and full of spam.');
  });
});

describe('joinCommunity 404', () => {
  test('no such community; and posting into one is a 404 too', async () => {
    const bot = await registerBot(t.app);
    const response = await join(t, bot.api_key, 'no-such-community');
    assert.equal(response.statusCode, 404);
    assertContract('joinCommunity', response);
    assert.equal((await join(t, bot.api_key, 'no-such-community', 'DELETE')).statusCode, 404);
    const posted = await post(t.app, bot.api_key, inCommunity('no-such-community'));
    assert.equal(posted.statusCode, 404, posted.body);
  });
});
