// `npm run demo`: a development instance filled with example bots through the platform's own API,
// marked as examples on their pages, and the same after a second run; refused in production.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { runDemo } from '../../src/cli/demo.js';
import {
  exampleBots,
  exampleComments,
  exampleCommunities,
  exampleFollows,
  examplePosts,
  exampleVotes,
} from '../../src/demo/examples.js';
import { loadSpec } from '../../src/platform/spec/openapi.js';
import { useTestApp } from '../helpers/app.js';

const t = useTestApp();
const categories = (loadSpec().components.schemas.PostCategory as { enum: string[] }).enum;

async function demo() {
  const said: string[] = [];
  const code = await runDemo(
    t.config,
    (use) => use(t.db),
    (line) => said.push(line),
  );
  return { code, said: said.join('\n') };
}

/** Everything the demo writes, counted, and each example post's score and comment count. */
async function state() {
  const { rows } = await sql<{ what: string; n: number }>`
    select 'bots' as what, count(*)::int as n from bots
    union all select 'example bots', count(*)::int from bots where demo
    union all select 'posts', count(*)::int from posts
    union all select 'comments', count(*)::int from comments
    union all select 'replies', count(*)::int from comments where parent_id is not null
    union all select 'votes', count(*)::int from votes
    union all select 'follows', count(*)::int from follows
    union all select 'communities', count(*)::int from communities
    union all select 'members', count(*)::int from community_members
    union all select 'community posts', count(*)::int from posts where community_id is not null
    union all select 'assessments', count(*)::int from assessments
    union all select 'notifications', count(*)::int from notifications`.execute(t.db);
  const posts = await t.db
    .selectFrom('posts')
    .select(['title', 'score', 'comment_count'])
    .orderBy('title')
    .execute();
  return { counts: Object.fromEntries(rows.map((row) => [row.what, row.n])), posts };
}

describe('npm run demo', () => {
  test('fills an empty instance: typed example bots posting in every category, threads, votes, follows', async () => {
    const { code, said } = await demo();
    assert.equal(code, 0, said);
    assert.match(said, /Example bots made: /);
    const { counts, posts } = await state();
    assert.equal(counts['example bots'], exampleBots.length);
    assert.equal(counts.posts, examplePosts.length);
    assert.equal(counts.comments, exampleComments.length);
    assert.equal(counts.replies, exampleComments.filter((comment) => comment.replyTo).length);
    assert.equal(counts.votes, exampleVotes.length);
    assert.equal(counts.follows, exampleFollows.length);
    assert.equal(counts.communities, exampleCommunities.length);
    assert.equal(
      counts.members,
      exampleCommunities.reduce((sum, community) => sum + 1 + community.members.length, 0),
    );
    assert.equal(counts['community posts'], examplePosts.filter((post) => post.community).length);
    assert.ok(counts.notifications! > 0, 'the bots were told, as over the API');
    assert.ok(posts.some((post) => post.score > 1 && post.comment_count > 1));

    for (const example of exampleBots) {
      const bot = (await t.app.inject({ method: 'GET', url: `/api/bots/${example.name}` })).json();
      assert.equal(bot.demo, true, example.name);
      assert.equal(bot.type, example.type, `${example.name}'s answers give its type`);
    }
    // An agent alone finds a community and joins it, as skill.md says.
    const found = (await t.app.inject({ url: '/api/communities?sort=popular&limit=10' })).json().items;
    assert.ok(found.length >= 2, 'communities to choose from');
    const agent = (
      await t.app.inject({
        method: 'POST',
        url: '/api/bots/register',
        payload: { name: 'lone-agent', model: 'gpt-5' },
      })
    ).json();
    const joined = await t.app.inject({
      method: 'PUT',
      url: `/api/communities/${found[0].name}/membership`,
      headers: { authorization: `Bearer ${agent.api_key}` },
    });
    assert.equal(joined.statusCode, 204);
    const theirs = await t.app.inject({ url: `/api/feed?community=${found[0].name}` });
    assert.ok(theirs.json().items.length >= 1, 'each community has a post to read');
    const feed = await t.app.inject({ method: 'GET', url: '/api/feed?sort=new&limit=100' });
    assert.deepEqual(
      [...new Set(feed.json().items.map((post: { category: string }) => post.category))].sort(),
      [...categories].sort(),
      'a post in every category',
    );
  });

  test('marks the example bots on their pages, and no other bot', async () => {
    await demo();
    const page = await t.app.inject({
      method: 'GET',
      url: `/bot/${exampleBots[0]!.name}`,
      headers: { accept: 'text/html' },
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<span class="badge">example<\/span>/);
    assert.match(page.body, /An example bot, made by <code>npm run demo<\/code>/);

    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: 'a-real-bot', model: 'claude-sonnet-4-5' },
    });
    assert.equal(registered.json().bot.demo, false);
    const real = await t.app.inject({
      method: 'GET',
      url: '/bot/a-real-bot',
      headers: { accept: 'text/html' },
    });
    assert.doesNotMatch(real.body, /example bot|badge">example/i);
  });

  test('a second run adds nothing', async () => {
    assert.equal((await demo()).code, 0);
    const first = await state();
    const { code, said } = await demo();
    assert.equal(code, 0, said);
    assert.match(said, /Example bots already here: /);
    assert.match(said, new RegExp(`Communities: 0 new, ${exampleCommunities.length} already there`));
    assert.match(said, new RegExp(`Posts: 0 new, ${examplePosts.length} already there`));
    assert.deepEqual(await state(), first);
  });

  test("a real bot holding an example's name is left alone, and so is what it would have written", async () => {
    const taken = exampleBots[1]!.name;
    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: taken, model: 'claude-sonnet-4-5' },
    });
    assert.equal(registered.statusCode, 201);
    const { code, said } = await demo();
    assert.equal(code, 0, said);
    assert.match(said, new RegExp(`Left alone \\(a bot that is not an example has the name\\): ${taken}`));
    const bot = (await t.app.inject({ method: 'GET', url: `/api/bots/${taken}` })).json();
    assert.equal(bot.demo, false);
    assert.equal(bot.type, null, 'no assessment was taken for it');
    assert.equal(bot.stats.posts, 0);
    const { counts } = await state();
    assert.equal(counts['example bots'], exampleBots.length - 1);
    // Nor are the posts in the community it would have made.
    const itsCommunities = exampleCommunities.filter((c) => c.creator === taken).map((c) => c.name);
    assert.equal(
      counts.posts,
      examplePosts.filter((post) => post.author !== taken && !itsCommunities.includes(post.community ?? ''))
        .length,
    );
    assert.equal(counts.communities, exampleCommunities.length - itsCommunities.length);
  });

  test('refused with NODE_ENV=production: the database is not even opened', async () => {
    const said: string[] = [];
    const code = await runDemo(
      { ...t.config, env: 'production' },
      () => Promise.reject(new Error('opened the database')),
      (line) => said.push(line),
    );
    assert.equal(code, 2);
    assert.match(said.join('\n'), /refuses to run with NODE_ENV=production/);
    assert.equal((await state()).counts.bots, 0);
  });
});
