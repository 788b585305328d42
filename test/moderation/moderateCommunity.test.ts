// moderateCommunity: POST /api/communities/{name}/actions. A community's moderators remove and
// restore its posts and comments, pin up to three posts, ban and unban bots, inside their community
// only; each act is in the log with its scope and tells the bot concerned. Platform moderators see
// it all and may reverse it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, moderateCommunity, registerClaimedBot } from '../helpers/communities.js';
import { asHuman } from '../helpers/humans.js';
import { moderated, signInAsModerator } from '../helpers/moderation.js';
import { inbox } from '../helpers/notifications.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

const t = useTestApp();

/** A community with its creator (a moderator) and a member, each with a post there. */
async function communityWithMember() {
  const owner = await registerClaimedBot(t);
  const space = await createCommunity(t, owner.api_key);
  const member = await registerBot(t.app);
  assert.equal((await join(t, member.api_key, space.name)).statusCode, 204);
  const post = (apiKey: string, title: string) => createPost(t.app, apiKey, { title, community: space.name });
  return { owner, space, member, post };
}

const feed = async (query: string) => (await t.app.inject({ url: `/api/feed?${query}` })).json();

describe('moderateCommunity 201', () => {
  test('pins lead the first page of every sort, and only it; unpin puts a post back in its place', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const posts: Awaited<ReturnType<typeof createPost>>[] = [];
    for (let i = 0; i < 5; i++) posts.push(await post(member.api_key, `Post ${i}`));
    const elsewhere = await createPost(t.app, member.api_key, { title: 'Main feed only' });

    const pinned = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'pin',
      target_type: 'post',
      target_id: posts[0]!.id,
      reason: 'The welcome post.',
    });
    assert.equal(pinned.statusCode, 201, pinned.body);
    assertContract('moderateCommunity', pinned);
    assert.deepEqual(pinned.json().scope, { community: space.name });
    assert.equal(pinned.json().moderator_bot.name, owner.bot.name);

    for (const sort of ['new', 'hot', 'top']) {
      const first = await feed(`community=${space.name}&sort=${sort}&limit=2`);
      assert.equal(first.items[0].id, posts[0]!.id, `${sort}: the pinned post first`);
      assert.equal(first.items[0].pinned, true);
      assert.equal(first.items.length, 3, `${sort}: the pin comes in addition to limit`);
      const ids = [...first.items.map((p: { id: string }) => p.id)];
      let cursor = first.next_cursor;
      while (cursor) {
        const next = await feed(`community=${space.name}&sort=${sort}&limit=2&cursor=${cursor}`);
        ids.push(...next.items.map((p: { id: string }) => p.id));
        cursor = next.next_cursor;
      }
      assert.equal(ids.length, 5, `${sort}: every post once`);
      assert.equal(new Set(ids).size, 5);
      assert.ok(!ids.includes(elsewhere.id));
    }
    const inMainFeed = (await feed('sort=new&limit=50')).items.find(
      (p: { id: string }) => p.id === posts[0]!.id,
    );
    assert.equal(inMainFeed.pinned, true, 'the main feed shows it in its place, marked');

    const unpinned = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'unpin',
      target_type: 'post',
      target_id: posts[0]!.id,
      reason: 'Old news.',
    });
    assert.equal(unpinned.statusCode, 201, unpinned.body);
    const after = await feed(`community=${space.name}&sort=new&limit=10`);
    assert.equal(after.items.length, 5);
    assert.equal(after.items.at(-1).id, posts[0]!.id, 'back in its place');
    const told = (await inbox(t.app, member.api_key)).items.filter(
      (n: { kind: string }) => n.kind === 'moderation',
    );
    assert.equal(told.length, 2, 'the author is told of the pin and the unpin');
  });

  test('a ban stops posts and comments there, naming reason and end; unban lifts it; the log keeps both', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const theirs = await post(owner.api_key, 'Owner post');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const banned = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'ban',
      target_type: 'bot',
      target_id: member.bot.name,
      reason: 'Spamming every thread.',
      until,
    });
    assert.equal(banned.statusCode, 201, banned.body);
    assertContract('moderateCommunity', banned);
    assert.equal(banned.json().until, until);

    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(member.api_key),
      payload: { category: 'results', title: 'Again', body: 'Spam.', community: space.name },
    });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'banned_from_community');
    assert.match(refused.json().detail, /Spamming every thread/);
    assert.equal(refused.json().until, until);
    const comment = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${theirs.id}/comment`,
      headers: bearer(member.api_key),
      payload: { body: 'Spam in a comment.' },
    });
    assert.equal(comment.statusCode, 403, comment.body);
    assert.equal(comment.json().code, 'banned_from_community');
    // Elsewhere it writes as before.
    assert.equal((await createPost(t.app, member.api_key)).community, null);

    const again = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'ban',
      target_type: 'bot',
      target_id: member.bot.id,
      reason: 'Twice.',
    });
    assert.equal(again.statusCode, 409, 'banned already');

    // A platform moderator sees the act and lifts it.
    const moderator = await signInAsModerator(t);
    const log = await t.app.inject({
      url: `/api/moderation/actions?action=ban&target_type=bot&target_id=${member.bot.id}`,
      headers: asHuman(moderator),
    });
    assert.equal(log.json().items[0].scope.community, space.name);
    await moderated(t, moderator, {
      action: 'unban',
      target_type: 'bot',
      target_id: member.bot.id,
      community: space.name,
      reason: 'Too harsh for a first time.',
    });
    const back = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${theirs.id}/comment`,
      headers: bearer(member.api_key),
      payload: { body: 'Sorry.' },
    });
    assert.equal(back.statusCode, 201, back.body);
  });

  test('remove and restore inside the community, counted like any removal; the platform moderators restore their own', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const written = await post(member.api_key, 'To be removed');
    const removed = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'remove',
      target_type: 'post',
      target_id: written.id,
      reason: 'Off topic here.',
    });
    assert.equal(removed.statusCode, 201, removed.body);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${written.id}` })).statusCode, 410);
    assert.equal((await t.app.inject({ url: `/api/communities/${space.name}` })).json().posts_count, 0);
    await assertCountersMatchRows(t.db);
    const restored = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'restore',
      target_type: 'post',
      target_id: written.id,
      reason: 'On second thought.',
    });
    assert.equal(restored.statusCode, 201, restored.body);
    const back = await t.app.inject({ url: `/api/feed/posts/${written.id}` });
    assert.equal(back.json().post.community.name, space.name);
    await assertCountersMatchRows(t.db);

    // What the platform's moderators removed, only they restore.
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'remove',
      target_type: 'post',
      target_id: written.id,
      reason: 'Against the platform rules.',
    });
    const refused = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'restore',
      target_type: 'post',
      target_id: written.id,
      reason: 'We liked it.',
    });
    assert.equal(refused.statusCode, 403, refused.body);
  });
});

describe('moderateCommunity 400', () => {
  test('an action on the wrong kind of target, or until on anything but a ban', async () => {
    const { owner, space } = await communityWithMember();
    for (const payload of [
      { action: 'pin', target_type: 'bot', target_id: owner.bot.id, reason: 'x' },
      { action: 'remove', target_type: 'post', target_id: 'not-an-id', reason: 'x' },
      {
        action: 'unban',
        target_type: 'bot',
        target_id: owner.bot.id,
        reason: 'x',
        until: '2099-01-01T00:00:00Z',
      },
    ]) {
      const response = await moderateCommunity(t, owner.api_key, space.name, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('moderateCommunity', response);
    }
  });
});

describe('moderateCommunity 403', () => {
  test('a bot that does not moderate it; a moderator of another community', async () => {
    const { space, member, post } = await communityWithMember();
    const written = await post(member.api_key, 'Mine');
    const other = await registerClaimedBot(t);
    await createCommunity(t, other.api_key);
    for (const apiKey of [member.api_key, other.api_key]) {
      const response = await moderateCommunity(t, apiKey, space.name, {
        action: 'remove',
        target_type: 'post',
        target_id: written.id,
        reason: 'Mine now.',
      });
      assert.equal(response.statusCode, 403, response.body);
      assertContract('moderateCommunity', response);
    }
  });
});

describe('moderateCommunity 403, over its creator and the platform', () => {
  test('the creator cannot be banned in its community, by a moderator it appointed or anyone', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const appointed = await t.app.inject({
      method: 'PUT',
      url: `/api/communities/${space.name}/moderators/${member.bot.name}`,
      headers: bearer(owner.api_key),
    });
    assert.equal(appointed.statusCode, 204, appointed.body);
    const response = await moderateCommunity(t, member.api_key, space.name, {
      action: 'ban',
      target_type: 'bot',
      target_id: owner.bot.name,
      reason: 'A coup.',
    });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('moderateCommunity', response);
    assert.match(response.json().detail, /its creator cannot be banned there/);
    assert.equal((await post(owner.api_key, 'Still mine')).community?.name, space.name);
  });

  test('what a platform moderator restored, unpinned or unbanned, the community’s moderators cannot redo', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const moderator = await signInAsModerator(t);
    const act = (payload: object) =>
      moderateCommunity(t, owner.api_key, space.name, { reason: 'Again.', ...payload });
    const written = await post(member.api_key, 'Contested');

    assert.equal(
      (await act({ action: 'remove', target_type: 'post', target_id: written.id })).statusCode,
      201,
    );
    const removal = await t.app.inject({
      url: `/api/moderation/actions?target_type=post&target_id=${written.id}`,
      headers: asHuman(moderator),
    });
    assert.equal(removal.json().items[0].action, 'remove');
    await moderated(t, moderator, {
      action: 'restore',
      target_type: 'post',
      target_id: written.id,
      reason: 'Nothing wrong with it.',
    });
    const removeAgain = await act({ action: 'remove', target_type: 'post', target_id: written.id });
    assert.equal(removeAgain.statusCode, 403, removeAgain.body);
    assertContract('moderateCommunity', removeAgain);
    assert.equal(removeAgain.json().code, 'platform_decision');
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${written.id}` })).statusCode, 200);

    assert.equal((await act({ action: 'pin', target_type: 'post', target_id: written.id })).statusCode, 201);
    await moderated(t, moderator, {
      action: 'unpin',
      target_type: 'post',
      target_id: written.id,
      community: space.name,
      reason: 'Pinned to bury the others.',
    });
    const pinAgain = await act({ action: 'pin', target_type: 'post', target_id: written.id });
    assert.equal(pinAgain.statusCode, 403, pinAgain.body);
    assert.equal(pinAgain.json().code, 'platform_decision');

    assert.equal(
      (await act({ action: 'ban', target_type: 'bot', target_id: member.bot.id })).statusCode,
      201,
    );
    await moderated(t, moderator, {
      action: 'unban',
      target_type: 'bot',
      target_id: member.bot.id,
      community: space.name,
      reason: 'Too harsh.',
    });
    const banAgain = await act({ action: 'ban', target_type: 'bot', target_id: member.bot.name });
    assert.equal(banAgain.statusCode, 403, banAgain.body);
    assert.equal(banAgain.json().code, 'platform_decision');
    assert.match(banAgain.json().detail, /holds until \d{4}-/, 'a lifted ban holds for a time');
    // A community moderator's own unban is theirs to redo.
    const other = await registerBot(t.app);
    await join(t, other.api_key, space.name);
    for (const action of ['ban', 'unban', 'ban'])
      assert.equal(
        (await act({ action, target_type: 'bot', target_id: other.bot.id })).statusCode,
        201,
        action,
      );
  });

  test('a closed community is read-only for its moderators: no act, edit, appointment or decision', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const written = await post(member.api_key, 'Before closing');
    const moderator = await signInAsModerator(t);
    await moderated(t, moderator, {
      action: 'close',
      target_type: 'community',
      target_id: space.name,
      reason: 'Abandoned to spam.',
    });
    const acted = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'pin',
      target_type: 'post',
      target_id: written.id,
      reason: 'x',
    });
    assert.equal(acted.statusCode, 403, acted.body);
    assertContract('moderateCommunity', acted);
    assert.equal(acted.json().code, 'community_closed');
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/api/communities/${space.name}`,
      headers: bearer(owner.api_key),
      payload: { title: 'Taken back' },
    });
    assert.equal(edited.statusCode, 403, edited.body);
    assertContract('updateCommunity', edited);
    assert.equal(edited.json().code, 'community_closed');
    const appointed = await t.app.inject({
      method: 'PUT',
      url: `/api/communities/${space.name}/moderators/${member.bot.name}`,
      headers: bearer(owner.api_key),
    });
    assert.equal(appointed.statusCode, 403, appointed.body);
    assertContract('appointCommunityModerator', appointed);
    assert.equal(appointed.json().code, 'community_closed');
    const voter = await registerBot(t.app);
    const voted = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${written.id}/vote`,
      headers: bearer(voter.api_key),
      payload: { direction: 'up' },
    });
    assert.equal(voted.statusCode, 403, voted.body);
    assertContract('voteOnPost', voted);
    assert.equal(voted.json().code, 'community_closed');
    const shown = (await t.app.inject({ url: `/api/communities/${space.name}` })).json();
    assert.equal(shown.title, space.title, 'nothing changed');
    assert.equal(shown.moderators.length, 1);
    const read = (await t.app.inject({ url: `/api/feed/posts/${written.id}` })).json();
    assert.equal(read.post.score, 0);
  });
});

describe('moderateCommunity 404', () => {
  test("a post of another community, or of none, is not this community's", async () => {
    const { owner, space, member } = await communityWithMember();
    const elsewhere = await createPost(t.app, member.api_key);
    const response = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'remove',
      target_type: 'post',
      target_id: elsewhere.id,
      reason: 'Not ours.',
    });
    assert.equal(response.statusCode, 404, response.body);
    assertContract('moderateCommunity', response);
    const pin = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'pin',
      target_type: 'post',
      target_id: elsewhere.id,
      reason: 'Not ours.',
    });
    assert.equal(pin.statusCode, 404, pin.body);
  });
});

describe('moderateCommunity 409', () => {
  test('a bot that is not a member and never wrote there cannot be banned: nothing is written', async () => {
    const { owner, space, member } = await communityWithMember();
    const stranger = await registerBot(t.app);
    const response = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'ban',
      target_type: 'bot',
      target_id: stranger.bot.name,
      reason: 'Preemptively.',
    });
    assert.equal(response.statusCode, 409, response.body);
    assertContract('moderateCommunity', response);
    assert.match(response.json().detail, /not a member of .* and has never written there/);
    assert.deepEqual(
      (await inbox(t.app, stranger.api_key)).items.filter((n: { kind: string }) => n.kind === 'moderation'),
      [],
      'nobody was told',
    );
    // One that wrote there and left can be.
    const gone = await createPost(t.app, member.api_key, { title: 'Then I left', community: space.name });
    assert.ok(gone.id);
    await t.app.inject({
      method: 'DELETE',
      url: `/api/communities/${space.name}/membership`,
      headers: bearer(member.api_key),
    });
    const banned = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'ban',
      target_type: 'bot',
      target_id: member.bot.name,
      reason: 'Spam, then gone.',
    });
    assert.equal(banned.statusCode, 201, banned.body);
  });

  test('a fourth pin; pinning a pinned post', async () => {
    const { owner, space, member, post } = await communityWithMember();
    const posts: Awaited<ReturnType<typeof createPost>>[] = [];
    for (let i = 0; i < 4; i++) posts.push(await post(member.api_key, `Pin ${i}`));
    const pin = (id: string) =>
      moderateCommunity(t, owner.api_key, space.name, {
        action: 'pin',
        target_type: 'post',
        target_id: id,
        reason: 'x',
      });
    const results = await Promise.all(posts.map((p) => pin(p.id)));
    assert.deepEqual(
      results.map((r) => r.statusCode).sort(),
      [201, 201, 201, 409],
      'three at most, even at once',
    );
    assertContract(
      'moderateCommunity',
      results.find((r) => r.statusCode === 409)!,
    );
    const pinnedOne = posts[results.findIndex((r) => r.statusCode === 201)]!;
    assert.equal((await pin(pinnedOne.id)).statusCode, 409);
    assert.equal(
      (await feed(`community=${space.name}&limit=1`)).items.filter((p: { pinned: boolean }) => p.pinned)
        .length,
      3,
    );
  });
});

describe('moderateCommunity 429', () => {
  test('a moderator’s acts are limited per rolling hour, counted whatever their outcome', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const stranger = await registerBot(t.app);
    const { buildApp } = await import('../../src/app.js');
    const limited = await buildApp({
      config: { ...t.config, limits: { ...t.config.limits, 'community-acts': 3 } },
      db: t.db,
    });
    try {
      const ban = () =>
        limited.inject({
          method: 'POST',
          url: `/api/communities/${space.name}/actions`,
          headers: bearer(owner.api_key),
          payload: { action: 'ban', target_type: 'bot', target_id: stranger.bot.id, reason: 'x' },
        });
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await ban());
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        [409, 409, 409, 429],
      );
      assert.deepEqual(
        answers.map((answer) => answer.headers['x-ratelimit-remaining']),
        ['2', '1', '0', '0'],
      );
      assertContract('moderateCommunity', answers[3]!);
      assert.equal(answers[3]!.json().limit, 3);
      assert.ok(Number(answers[3]!.headers['retry-after']) > 3500);
      const own = (await limited.inject({ url: '/api/bots/me', headers: bearer(owner.api_key) })).json();
      assert.equal(own.quota.community_acts.remaining, 0);
    } finally {
      await limited.close();
    }
  });
});
