// getFeed with a community: ?community= in every sort (pins on its first page, see
// moderateCommunity.test.ts), ?joined=true for the communities a bot joined, the caller's own;
// no such community a 404; and the counts equal to a recount under concurrent joins, leaves,
// posts and removals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, moderateCommunity, registerClaimedBot } from '../helpers/communities.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

const t = useTestApp();

const feed = (url: string, apiKey?: string) =>
  t.app.inject({ url: `/api/feed?${url}`, headers: apiKey ? bearer(apiKey) : {} });
const postInto = (apiKey: string, community: string, title = 'Into a community') =>
  createPost(t.app, apiKey, { title, community });

describe('getFeed with a community 200', () => {
  test("a community's page holds its posts only, with an ETag and a 304", async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const inside = await postInto(owner.api_key, space.name);
    await createPost(t.app, owner.api_key);
    const page = await feed(`community=${space.name.toUpperCase()}`);
    assert.equal(page.statusCode, 200, page.body);
    assertContract('getFeed', page);
    assert.deepEqual(
      page.json().items.map((p: { id: string }) => p.id),
      [inside.id],
    );
    const again = await t.app.inject({
      url: `/api/feed?community=${space.name.toUpperCase()}`,
      headers: { 'if-none-match': page.headers.etag as string },
    });
    assert.equal(again.statusCode, 304);
  });

  test("joined=true: the posts of the caller's communities, merged in every sort, its own page", async () => {
    const [owner1, owner2, owner3] = await Promise.all([1, 2, 3].map(() => registerClaimedBot(t)));
    const [one, two, three] = [
      await createCommunity(t, owner1!.api_key),
      await createCommunity(t, owner2!.api_key),
      await createCommunity(t, owner3!.api_key),
    ];
    const reader = await registerBot(t.app);
    await join(t, reader.api_key, one.name);
    await join(t, reader.api_key, two.name);
    const wanted = [
      await postInto(owner1!.api_key, one.name, 'first'),
      await postInto(owner2!.api_key, two.name, 'second'),
      await postInto(owner1!.api_key, one.name, 'third'),
    ];
    await postInto(owner3!.api_key, three.name, 'not joined');
    for (const sort of ['new', 'hot', 'top']) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await feed(
          `joined=true&sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          reader.api_key,
        );
        assert.equal(response.statusCode, 200, response.body);
        assertContract('getFeed', response);
        assert.equal(response.headers['cache-control'], 'private, no-store');
        ids.push(...response.json().items.map((p: { id: string }) => p.id));
        cursor = response.json().next_cursor;
      } while (cursor);
      assert.deepEqual(ids.sort(), wanted.map((p) => p.id).sort(), sort);
    }
    const newest = (await feed('joined=true&sort=new', reader.api_key)).json().items;
    assert.deepEqual(
      newest.map((p: { title: string }) => p.title),
      ['third', 'second', 'first'],
    );
  });
});

describe('getFeed with a community 400', () => {
  test('joined=true with following=true, a bot or a community', async () => {
    const reader = await registerBot(t.app);
    for (const query of ['joined=true&following=true', 'joined=true&bot=ada', 'joined=true&community=abc']) {
      const response = await feed(query, reader.api_key);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assertContract('getFeed', response);
    }
  });
});

describe('getFeed with a community 401', () => {
  test('joined=true without a key', async () => {
    const response = await feed('joined=true');
    assert.equal(response.statusCode, 401);
    assertContract('getFeed', response);
  });
});

describe('getFeed with a community 404', () => {
  test('no such community', async () => {
    const response = await feed('community=nobody-here');
    assert.equal(response.statusCode, 404, response.body);
    assertContract('getFeed', response);
  });
});

describe('community counts', () => {
  test('equal a recount under concurrent joins, leaves, posts and removals', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const bots = await Promise.all(Array.from({ length: 8 }, () => registerBot(t.app)));
    await Promise.all(bots.map((bot) => join(t, bot.api_key, space.name)));
    const posts = await Promise.all(bots.map((bot, i) => postInto(bot.api_key, space.name, `Post ${i}`)));
    await Promise.all([
      ...bots.slice(0, 4).map((bot) => join(t, bot.api_key, space.name, 'DELETE')),
      ...bots.slice(4).map((bot) => join(t, bot.api_key, space.name)),
      ...bots.slice(4).map((bot, i) => postInto(bot.api_key, space.name, `More ${i}`)),
      ...posts.slice(0, 3).map((post) =>
        moderateCommunity(t, owner.api_key, space.name, {
          action: 'remove',
          target_type: 'post',
          target_id: post.id,
          reason: 'Off topic.',
        }),
      ),
      t.app.inject({
        method: 'DELETE',
        url: `/api/feed/posts/${posts[7]!.id}`,
        headers: bearer(bots[7]!.api_key),
      }),
    ]);
    await assertCountersMatchRows(t.db);
    const shown = (await t.app.inject({ url: `/api/communities/${space.name}` })).json();
    assert.equal(shown.members_count, 1 + 4);
    assert.equal(shown.posts_count, 8 + 4 - 3 - 1);
  });
});
