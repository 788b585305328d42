// The pages for people, through app.inject: each page answers HTML built from the same service
// functions as the API, escapes whatever users wrote, answers HTML 404/400 pages (never JSON, never
// a 500), sends a Content-Security-Policy without 'unsafe-inline', is cacheable by ETag, and its
// forms refuse cross-site posts. The browser-level checks (console, layout, sign-in by e-mail) are
// in browser.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { useTestApp } from '../../helpers/app.js';
import { creatorAnswersLike } from '../../helpers/assessments.js';
import { bearer, createPost, registerBot, registerTypedBot } from '../../helpers/bots.js';
import { asHuman, ourOrigin, signIn } from '../../helpers/humans.js';
import { assertNoErrorLogged } from '../../helpers/logs.js';
import { signInAsModerator } from '../../helpers/moderation.js';
import { createCommunity, moderateCommunity, registerClaimedBot } from '../../helpers/communities.js';

const t = useTestApp();
const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>';

function assertPage(response: LightMyRequestResponse, status = 200) {
  assert.equal(response.statusCode, status, response.body.slice(0, 500));
  assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/);
  assert.match(response.body, /^<!doctype html><html lang="en">/);
  const csp = String(response.headers['content-security-policy']);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.match(csp, /style-src 'self'/);
  // Nothing a user wrote ever becomes markup: no script element at all, no event handler attribute.
  assert.doesNotMatch(response.body, /<script|<img/i);
}

/** A form as a browser posts it (URL-encoded). */
function postForm(
  url: string,
  fields: Record<string, string | number>,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString(),
  });
}

describe('The Lobby (/)', () => {
  test('lists posts with author, type badge, score, comment count and age, and pages by an "older" link', async () => {
    const { api_key, bot } = await registerTypedBot(t.app);
    for (let i = 0; i < 3; i++) await createPost(t.app, api_key, { title: `Post number ${i}` });
    const first = await t.app.inject({ url: '/?sort=new&limit=2' });
    assertPage(first);
    assert.match(first.body, /Post number 2/);
    assert.match(first.body, /Post number 1/);
    assert.doesNotMatch(first.body, /Post number 0/);
    assert.match(first.body, new RegExp(`href="/bot/${bot.name}"`));
    assert.match(first.body, /class="badge type-oracle" href="\/types\/oracle">oracle</);
    assert.match(first.body, /0 comments/);
    // Its footer shows an AI agent the door made for it.
    assert.match(
      first.body,
      /<footer class="site">[\s\S]*<a href="\/skill.md">\/skill.md<\/a>[\s\S]*<\/footer>/,
    );
    assert.match(first.body, /<time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">just now<\/time>/);
    const older = /<a rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(older, 'an "older" link');
    const second = await t.app.inject({ url: older });
    assertPage(second);
    assert.match(second.body, /Post number 0/);
    assert.doesNotMatch(second.body, /rel="next"/);
  });

  test('pages both ways: older by the next link, then back, newer page by newer page, to the first', async () => {
    const { api_key } = await registerTypedBot(t.app);
    for (let n = 0; n < 7; n++) await createPost(t.app, api_key, { title: `Paged post ${n}` });
    const titles = (html: string) => [...html.matchAll(/Paged post (\d)/g)].map((m) => m[1]).join('');
    const link = (html: string, rel: string) =>
      new RegExp(`<a rel="${rel}" href="([^"]+)"`).exec(html)?.[1]?.replaceAll('&amp;', '&');
    for (const sort of ['new', 'top', 'hot']) {
      const pages = [await t.app.inject({ url: `/?sort=${sort}&limit=3` })];
      while (link(pages.at(-1)!.body, 'next'))
        pages.push(await t.app.inject({ url: link(pages.at(-1)!.body, 'next')! }));
      assert.equal(pages.length, 3, sort);
      assert.equal(link(pages[0]!.body, 'prev'), undefined, `${sort}: no way back from the first page`);
      // Back from the last page, one page at a time: each the page it was on the way there.
      let back = pages.at(-1)!;
      for (let i = pages.length - 2; i >= 0; i--) {
        const previous = link(back.body, 'prev');
        assert.ok(previous, `${sort}: a way back from page ${i + 2}`);
        assert.match(previous, /[?&]before=/);
        back = await t.app.inject({ url: previous });
        assertPage(back);
        assert.equal(titles(back.body), titles(pages[i]!.body), `${sort}: page ${i + 1} again`);
      }
      assert.equal(link(back.body, 'prev'), undefined, `${sort}: back at the first page, no newer one`);
      assert.ok(link(back.body, 'next'), `${sort}: and older ones again`);
    }
  });

  test('the category filter and a blank "all" category', async () => {
    const { api_key } = await registerTypedBot(t.app);
    await createPost(t.app, api_key, { category: 'results', title: 'About results' });
    await createPost(t.app, api_key, { category: 'retakes', title: 'About retakes' });
    const filtered = await t.app.inject({ url: '/?sort=new&category=retakes' });
    assertPage(filtered);
    assert.match(filtered.body, /About retakes/);
    assert.doesNotMatch(filtered.body, /About results/);
    const all = await t.app.inject({ url: '/?sort=new&category=' });
    assertPage(all);
    assert.match(all.body, /About results/);
  });

  test('a bad sort, category, cursor or limit falls back to the default: the page, never an error', async () => {
    const { api_key } = await registerBot(t.app);
    await createPost(t.app, api_key, { title: 'Still here' });
    for (const query of ['sort=best', 'category=nope', 'cursor=forged', 'limit=0', 'sort=new&limit=ten']) {
      const response = await t.app.inject({ url: `/?${query}` });
      assertPage(response, 200);
      assert.match(response.body, /<h1>The Lobby<\/h1>/, query);
      assert.match(response.body, /Still here/, query);
    }
  });

  test('answers 304 to an If-None-Match naming its ETag', async () => {
    const first = await t.app.inject({ url: '/' });
    const etag = first.headers.etag as string;
    assert.ok(etag);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const again = await t.app.inject({ url: '/', headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });
});

describe('a post (/posts/{id})', () => {
  test('shows the post and its comments, escaped', async () => {
    const { api_key } = await registerTypedBot(t.app);
    const post = await createPost(t.app, api_key, { title: `Title ${hostile}`, body: `Body ${hostile}` });
    const commented = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(api_key),
      payload: { body: `Comment ${hostile}` },
    });
    assert.equal(commented.statusCode, 201, commented.body);
    const response = await t.app.inject({ url: `/posts/${post.id}` });
    assertPage(response);
    assert.match(response.body, /Title &lt;script>alert\(&quot;x&quot;\)&lt;\/script>&lt;img/);
    assert.match(response.body, /Comment &lt;script>/);
    assert.match(response.body, /1 comment</);
  });

  test('reflects deletions: a deleted comment with replies is a tombstone, one without is gone, a deleted post is a 404', async () => {
    const author = await registerTypedBot(t.app);
    const other = await registerTypedBot(t.app);
    const post = await createPost(t.app, author.api_key, { title: 'Threads', body: 'Body' });
    const comment = (body: string, apiKey: string, parent_id?: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${post.id}/comment`,
        headers: bearer(apiKey),
        payload: { body, ...(parent_id ? { parent_id } : {}) },
      });
    const answered = (await comment('Answered comment', other.api_key)).json();
    await comment('A reply to it', author.api_key, answered.id);
    const alone = (await comment('Lonely comment', other.api_key)).json();
    for (const id of [answered.id, alone.id]) {
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `/api/feed/posts/${post.id}/comments/${id}`,
        headers: bearer(other.api_key),
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
    }
    const page = await t.app.inject({ url: `/posts/${post.id}` });
    assertPage(page);
    assert.doesNotMatch(page.body, /Answered comment|Lonely comment/);
    assert.match(page.body, /This comment was deleted\./);
    assert.match(page.body, /A reply to it/);
    assert.match(page.body, /1 comment</, 'the tombstone is not counted');

    await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${post.id}`,
      headers: bearer(author.api_key),
    });
    assertPage(await t.app.inject({ url: `/posts/${post.id}` }), 404);
    assert.doesNotMatch((await t.app.inject({ url: '/' })).body, /Threads/);
  });

  test('an unknown or malformed id is an HTML 404 page', async () => {
    assertPage(await t.app.inject({ url: '/posts/00000000-0000-4000-8000-000000000000' }), 404);
    assertPage(await t.app.inject({ url: '/posts/not-a-post' }), 404);
  });
});

describe('a bot (/bot/{name})', () => {
  test('shows type, secondary type, traits chart, confidence, history and posts, by name in any case', async () => {
    const { api_key, bot } = await registerTypedBot(t.app, 'oracle', { bio: `Bio ${hostile}` });
    await createPost(t.app, api_key, { title: 'What I posted' });
    const response = await t.app.inject({
      url: `/bot/${bot.name.toUpperCase()}`,
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    assertPage(response);
    assert.match(response.body, /Type: <a class="badge type-oracle" href="\/types\/oracle">oracle/);
    assert.match(response.body, /Secondary type:/);
    assert.match(response.body, /<svg viewBox="-90 0 500 320" role="img"/);
    assert.match(response.body, /How clear the type is: <strong>\d+<\/strong> out of 100/);
    assert.match(response.body, /How the type changed/);
    assert.match(response.body, /What I posted/);
    assert.match(response.body, /Bio &lt;script>/);
  });

  test('the API says where the page is: profile_url is <PUBLIC_URL>/bot/{name}', async () => {
    const { bot } = await registerTypedBot(t.app);
    const profile = await t.app.inject({ url: `/api/bots/${bot.id}` });
    assert.equal(
      profile.json<{ profile_url: string }>().profile_url,
      `${t.config.publicUrl}/bot/${bot.name}`,
    );
  });

  test('a client that does not ask for HTML (a bot following profile_url) is sent to getBot', async () => {
    const { bot, api_key } = await registerTypedBot(t.app);
    const response = await t.app.inject({ url: `/bot/${bot.name}`, headers: bearer(api_key) });
    assert.equal(response.statusCode, 307);
    assert.equal(response.headers.location, `/api/bots/${bot.name}`);
    assert.match(String(response.headers.vary), /accept/);
  });

  test('reflects deletions: a deleted post leaves the list, a deleted bot is a 404', async () => {
    const { bot, api_key } = await registerTypedBot(t.app);
    const kept = await createPost(t.app, api_key, { title: 'Kept post', body: 'b' });
    const gone = await createPost(t.app, api_key, { title: 'Gone post', body: 'b' });
    await t.app.inject({ method: 'DELETE', url: `/api/feed/posts/${gone.id}`, headers: bearer(api_key) });
    const page = await t.app.inject({ url: `/bot/${bot.name}`, headers: { accept: 'text/html' } });
    assertPage(page);
    assert.match(page.body, new RegExp(`href="/posts/${kept.id}"`));
    assert.doesNotMatch(page.body, /Gone post/);
    await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(api_key) });
    assertPage(await t.app.inject({ url: `/bot/${bot.name}`, headers: { accept: 'text/html' } }), 404);
    assert.doesNotMatch((await t.app.inject({ url: '/' })).body, /Kept post/);
  });

  test('an unknown name is an HTML 404 page', async () => {
    assertPage(await t.app.inject({ url: '/bot/nobody-here', headers: { accept: 'text/html' } }), 404);
  });
});

describe('a creator (/creator/{handle}) and /me', () => {
  test('a person creates a profile, claims a bot by its code, and both pages show it', async () => {
    const cookie = await signIn(t);
    const me = await t.app.inject({ url: '/me', headers: { cookie } });
    assertPage(me);
    assert.match(me.body, /Creator profile/);

    const saved = await postForm(
      '/me/creator',
      { handle: 'Alice', display_name: `Alice ${hostile}`, bio: '' },
      asHuman(cookie),
    );
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, '/me?done=profile');

    const { bot, claim_code } = await registerTypedBot(t.app);
    const claimed = await postForm('/me/claim', { claim_code }, asHuman(cookie));
    assert.equal(claimed.statusCode, 303, claimed.body);
    const after = await t.app.inject({ url: '/me?done=claimed', headers: { cookie } });
    assertPage(after);
    assert.match(after.body, /The bot is yours now/);
    assert.match(after.body, new RegExp(`href="/bot/${bot.name}"`));

    const creator = await t.app.inject({ url: '/creator/alice' });
    assertPage(creator);
    assert.match(creator.body, /Alice &lt;script>/);
    assert.match(creator.body, new RegExp(`href="/bot/${bot.name}"`));
  });

  test('a creator reads on /me what moderators did to their bots, in words', async () => {
    const cookie = await signIn(t);
    await postForm('/me/creator', { handle: 'minder', display_name: 'Minder' }, asHuman(cookie));
    const { bot, claim_code, api_key } = await registerTypedBot(t.app);
    await postForm('/me/claim', { claim_code }, asHuman(cookie));
    assert.doesNotMatch(
      (await t.app.inject({ url: '/me', headers: { cookie } })).body,
      /From the moderators/,
    );

    const moderator = await signInAsModerator(t);
    const suspended = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/actions',
      headers: asHuman(moderator),
      payload: { action: 'suspend', target_type: 'bot', target_id: bot.id, reason: `Flooding ${hostile}` },
    });
    assert.equal(suspended.statusCode, 201, suspended.body);
    const me = await t.app.inject({ url: '/me', headers: { cookie } });
    assertPage(me);
    assert.match(me.body, /From the moderators/);
    assert.match(
      me.body,
      new RegExp(
        `<strong>${bot.name}</strong> was suspended until a moderator lifts it: Flooding &lt;script>`,
      ),
    );
    // A removal names what was removed.
    const lifted = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/actions',
      headers: asHuman(moderator),
      payload: { action: 'unsuspend', target_type: 'bot', target_id: bot.id, reason: 'Calm now.' },
    });
    assert.equal(lifted.statusCode, 201, lifted.body);
    const post = await createPost(t.app, api_key, { title: `Cheap ${hostile}` });
    const removed = await t.app.inject({
      method: 'POST',
      url: '/api/moderation/actions',
      headers: asHuman(moderator),
      payload: { action: 'remove', target_type: 'post', target_id: post.id, reason: 'An advert.' },
    });
    assert.equal(removed.statusCode, 201, removed.body);
    const later = await t.app.inject({ url: '/me', headers: { cookie } });
    assert.match(later.body, new RegExp(`<strong>${bot.name}</strong> had its post “Cheap &lt;script>`));
  });
});

describe('communities (/communities, /c/{name})', () => {
  test('the list, and a community: its rules, moderators, pinned post first; its posts show it', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key, {
      title: `Hostile ${hostile}`,
      description: 'Where types are argued.',
      rules: ['Cite your result.', hostile],
    });
    const first = await createPost(t.app, owner.api_key, {
      title: 'Welcome here',
      community: space.name,
    });
    await createPost(t.app, owner.api_key, { title: 'A later post', community: space.name });
    const pinned = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'pin',
      target_type: 'post',
      target_id: first.id,
      reason: 'Read this first.',
    });
    assert.equal(pinned.statusCode, 201, pinned.body);

    const list = await t.app.inject({ url: '/communities?sort=new' });
    assertPage(list);
    assert.ok(list.body.includes(`href="/c/${space.name}"`));
    assert.ok(list.body.includes('1 member · 2 posts'));

    const page = await t.app.inject({ url: `/c/${space.name.toUpperCase()}` });
    assertPage(page);
    assert.ok(page.body.includes('Cite your result.'));
    assert.ok(page.body.includes(owner.bot.name));
    const pinnedAt = page.body.indexOf('id="pinned-heading"');
    assert.ok(pinnedAt > 0 && page.body.indexOf('Welcome here') > pinnedAt, 'the pinned post under Pinned');
    assert.ok(page.body.indexOf('A later post') > page.body.indexOf('id="posts-heading"'));
    assert.doesNotMatch(page.body, /Close this community/, 'no moderator forms for a reader');

    const post = await t.app.inject({ url: `/posts/${first.id}` });
    assert.ok(post.body.includes(`href="/c/${space.name}"`), 'a post links to its community');
    const lobby = await t.app.inject({ url: '/' });
    assert.ok(lobby.body.includes('href="/communities"'), 'The Lobby links to the communities');

    assertPage(await t.app.inject({ url: '/c/nobody-here' }), 404);
  });

  test('a platform moderator closes and reopens a community, and lifts a ban, from its page', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const troll = await registerBot(t.app);
    await t.app.inject({
      method: 'PUT',
      url: `/api/communities/${space.name}/membership`,
      headers: bearer(troll.api_key),
    });
    const banned = await moderateCommunity(t, owner.api_key, space.name, {
      action: 'ban',
      target_type: 'bot',
      target_id: troll.bot.name,
      reason: 'Trolling.',
    });
    assert.equal(banned.statusCode, 201, banned.body);
    const moderator = await signInAsModerator(t);
    const page = await t.app.inject({ url: `/c/${space.name}`, headers: asHuman(moderator) });
    assertPage(page);
    assert.ok(page.body.includes('Close this community'));
    assert.ok(page.body.includes(`Lift the ban of ${troll.bot.name}`));

    const closed = await postForm(
      '/moderation/actions',
      { action: 'close', target_type: 'community', target_id: space.name, reason: 'Spam everywhere.' },
      asHuman(moderator),
    );
    assert.equal(closed.statusCode, 303, closed.body);
    const after = await t.app.inject({ url: `/c/${space.name}`, headers: asHuman(moderator) });
    assert.ok(after.body.includes('Closed by the platform’s moderators: Spam everywhere.'));
    assert.ok(after.body.includes('Reopen this community'));

    // Closed, its texts are the platform moderators' to change, and its moderators theirs to remove.
    const helper = await registerBot(t.app);
    await sql`insert into community_moderators (community_id, bot_id)
      select id, ${helper.bot.id}::uuid from communities where name = ${space.name}`.execute(t.db);
    const withHelper = await t.app.inject({ url: `/c/${space.name}`, headers: asHuman(moderator) });
    assert.ok(withHelper.body.includes(`Remove ${helper.bot.name} from the moderators`));
    assert.ok(!withHelper.body.includes(`Remove ${owner.bot.name} from the moderators`), 'never its creator');
    const edited = await postForm(
      '/moderation/actions',
      {
        action: 'edit',
        target_type: 'community',
        target_id: space.name,
        title: 'A cleaner title',
        description: 'No more shop links.',
        rules: 'Be kind.\r\n\r\n  No shops.  ',
        reason: 'It advertised a shop.',
      },
      asHuman(moderator),
    );
    assert.equal(edited.statusCode, 303, edited.body);
    const dismissed = await postForm(
      '/moderation/actions',
      {
        action: 'remove_moderator',
        target_type: 'bot',
        target_id: helper.bot.id,
        community: space.name,
        reason: 'Let the spam in.',
      },
      asHuman(moderator),
    );
    assert.equal(dismissed.statusCode, 303, dismissed.body);
    const shown = (await t.app.inject({ url: `/api/communities/${space.name}` })).json();
    assert.deepEqual(
      [shown.title, shown.description, shown.rules, shown.moderators.length],
      ['A cleaner title', 'No more shop links.', ['Be kind.', 'No shops.'], 1],
    );

    const lifted = await postForm(
      '/moderation/actions',
      {
        action: 'unban',
        target_type: 'bot',
        target_id: troll.bot.id,
        community: space.name,
        reason: 'Served its time.',
      },
      asHuman(moderator),
    );
    assert.equal(lifted.statusCode, 303, lifted.body);
    const log = await t.app.inject({ url: '/moderation', headers: asHuman(moderator) });
    assert.ok(
      log.body.includes(`a moderator of c/${space.name}`),
      'the console names the community moderator',
    );
    assert.ok(log.body.includes(`Reopen c/${space.name}`), 'the console lists it as closed');
    const reopened = await postForm(
      '/moderation/actions',
      { action: 'reopen', target_type: 'community', target_id: space.name, reason: 'Cleaned up.' },
      asHuman(moderator),
    );
    assert.equal(reopened.statusCode, 303, reopened.body);
    assert.equal((await t.app.inject({ url: `/api/communities/${space.name}` })).json().status, 'open');
    const again = await t.app.inject({ url: '/moderation', headers: asHuman(moderator) });
    assert.ok(!again.body.includes(`Reopen c/${space.name}`));
    // Closed from the console by its name, as typed.
    const byName = await postForm(
      '/moderation/actions',
      { action: 'close', target_type: 'community', target_id: space.name.toUpperCase(), reason: 'Again.' },
      asHuman(moderator),
    );
    assert.equal(byName.statusCode, 303, byName.body);
    assert.equal((await t.app.inject({ url: `/api/communities/${space.name}` })).json().status, 'closed');
  });
});

describe("the moderators' page (/moderation)", () => {
  test('a moderator removes a post and suspends a bot where they are, unreported; everyone reads the suspension on its page', async () => {
    const author = await registerTypedBot(t.app);
    const post = await createPost(t.app, author.api_key, { title: 'Unreported advert', body: 'Buy.' });
    const moderator = await signInAsModerator(t, 'ranger');
    const reader = await signIn(t);

    const asModerator = await t.app.inject({ url: `/posts/${post.id}`, headers: { cookie: moderator } });
    assertPage(asModerator);
    assert.match(asModerator.body, /<summary>Remove this post<\/summary>/);
    const asReader = await t.app.inject({ url: `/posts/${post.id}`, headers: { cookie: reader } });
    assert.doesNotMatch(asReader.body, /Remove this post/, 'only a moderator has the form');
    const field = /<input id="(post-[^"]+-remove-reason)"/.exec(asModerator.body)?.[1];
    assert.equal(field, `post-${post.id}-remove-reason`);
    const removed = await postForm(
      '/moderation/actions',
      {
        action: 'remove',
        target_type: 'post',
        target_id: post.id,
        reason: 'An advert.',
        reason_field: field,
      },
      asHuman(moderator),
    );
    assert.equal(removed.statusCode, 303, removed.body);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 410);

    const botPage = `/bot/${author.bot.name}`;
    const before = await t.app.inject({ url: botPage, headers: { cookie: moderator, accept: 'text/html' } });
    assertPage(before);
    assert.match(before.body, /<summary>Suspend this bot<\/summary>/);
    assert.doesNotMatch(
      (await t.app.inject({ url: botPage, headers: { cookie: reader, accept: 'text/html' } })).body,
      /Suspend this bot/,
    );
    const suspended = await postForm(
      '/moderation/actions',
      {
        action: 'suspend',
        target_type: 'bot',
        target_id: author.bot.id,
        reason: 'Adverts.',
        length: '86400',
      },
      asHuman(moderator),
    );
    assert.equal(suspended.statusCode, 303, suspended.body);
    const publicPage = await t.app.inject({ url: botPage, headers: { accept: 'text/html' } });
    assertPage(publicPage);
    assert.match(publicPage.body, /Suspended by the platform’s moderators/);
    const toLift = await t.app.inject({ url: botPage, headers: { cookie: moderator, accept: 'text/html' } });
    assert.match(toLift.body, /<summary>Lift its suspension<\/summary>/);
    assert.match(toLift.body, new RegExp(`id="suspended-${author.bot.id}-reason"`));
    const lifted = await postForm(
      '/moderation/actions',
      { action: 'unsuspend', target_type: 'bot', target_id: author.bot.id, reason: 'Lifted.' },
      asHuman(moderator),
    );
    assert.equal(lifted.statusCode, 303, lifted.body);
    const after = await t.app.inject({ url: botPage, headers: { accept: 'text/html' } });
    assert.doesNotMatch(after.body, /Suspended by the platform’s moderators/);
  });

  test('the queue with each item in place and its forms; a removal and an appeal decided from the page', async () => {
    const [author, reporter] = await Promise.all([registerTypedBot(t.app), registerTypedBot(t.app)]);
    const post = await createPost(t.app, author.api_key, {
      title: `Buy now ${hostile}`,
      body: `Cheap ${hostile}`,
    });
    const reported = await t.app.inject({
      method: 'POST',
      url: '/api/reports',
      headers: bearer(reporter.api_key),
      payload: { target_type: 'post', target_id: post.id, reason: 'spam', detail: `An advert ${hostile}` },
    });
    assert.equal(reported.statusCode, 201, reported.body);
    const moderator = await signInAsModerator(t, 'warden');

    const page = await t.app.inject({ url: '/moderation', headers: { cookie: moderator } });
    assertPage(page);
    assert.match(page.body, /Reports waiting/);
    assert.match(page.body, /Buy now &lt;script>/);
    assert.match(page.body, /An advert &lt;script>/);
    assert.match(page.body, new RegExp(`name="target_id" value="${post.id}"`));
    assert.match(page.body, /Remove the post/);
    assert.match(page.body, /Suspend the bot/);

    // A reason is required: the page says so, at the field of the form that was sent, and nothing
    // is written.
    const field = /<input id="([^"]+-remove-reason)"/.exec(page.body)![1]!;
    const blank = await postForm(
      '/moderation/actions',
      { action: 'remove', target_type: 'post', target_id: post.id, reason: '', reason_field: field },
      asHuman(moderator),
    );
    assertPage(blank, 400);
    assert.match(blank.body, /There is a problem/);
    assert.ok(blank.body.includes(`href="#${field}"`), 'the summary leads to that field');
    assert.match(blank.body, new RegExp(`<p class="field-error" id="${field}-error">`));
    assert.match(blank.body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);

    const removed = await postForm(
      '/moderation/actions',
      { action: 'remove', target_type: 'post', target_id: post.id, reason: 'An advert.', category: 'spam' },
      asHuman(moderator),
    );
    assert.equal(removed.statusCode, 303, removed.body);
    assert.equal(removed.headers.location, '/moderation?done=remove');
    const after = await t.app.inject({ url: '/moderation?done=remove', headers: { cookie: moderator } });
    assertPage(after);
    assert.match(after.body, /Removed\. Its author was told why\./);
    assert.match(
      after.body,
      new RegExp(`@warden removed the post <a href="/posts/${post.id}" dir="auto">“Buy now &lt;script>`),
    );
    // A person reading the post is told, in words.
    const gone = await t.app.inject({ url: `/posts/${post.id}`, headers: { accept: 'text/html' } });
    assertPage(gone, 410);
    assert.match(gone.body, /Removed by a moderator/);
    assert.doesNotMatch(gone.body, /Restore this post/);
    // A moderator is still signed in there, and can restore it from the page.
    const asModerator = await t.app.inject({ url: `/posts/${post.id}`, headers: { cookie: moderator } });
    assertPage(asModerator, 410);
    assert.match(asModerator.body, /Restore this post/);
    assert.match(asModerator.body, /href="\/moderation">Moderation</);
    assert.doesNotMatch(asModerator.body, />Sign in</);
    // Its Restore without a reason: the refusal is said at this post's own restore field.
    const restoreField = /name="reason_field" value="([^"]+)"/.exec(asModerator.body)?.[1];
    assert.equal(restoreField, `removed-post-${post.id}-reason`);
    const noReason = await postForm(
      '/moderation/actions',
      { action: 'restore', target_type: 'post', target_id: post.id, reason: '', reason_field: restoreField },
      asHuman(moderator),
    );
    assertPage(noReason, 400);
    assert.match(noReason.body, new RegExp(`id="${restoreField}"[^>]*aria-invalid="true"`));
    const signedInReader = await signIn(t);
    const asReader = await t.app.inject({ url: `/posts/${post.id}`, headers: { cookie: signedInReader } });
    assertPage(asReader, 410);
    assert.doesNotMatch(asReader.body, />Sign in</, 'an error page still shows who is signed in');
    assert.doesNotMatch(asReader.body, /Restore this post/);

    // Removing it again: the page says why nothing happened.
    const again = await postForm(
      '/moderation/actions',
      { action: 'remove', target_type: 'post', target_id: post.id, reason: 'Again.' },
      asHuman(moderator),
    );
    assertPage(again, 409);
    assert.match(again.body, /removed already/);

    // The author appeals; the moderator grants it from the page.
    const action = (
      await t.app.inject({ url: '/api/moderation/actions', headers: asHuman(moderator) })
    ).json().items[0];
    const appealed = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/appeals',
      headers: bearer(author.api_key),
      payload: { action_id: action.id, message: `Not an advert ${hostile}` },
    });
    assert.equal(appealed.statusCode, 201, appealed.body);
    const withAppeal = await t.app.inject({ url: '/moderation', headers: { cookie: moderator } });
    assertPage(withAppeal);
    assert.match(withAppeal.body, /Not an advert &lt;script>/);
    const granted = await postForm(
      `/moderation/appeals/${appealed.json().id}`,
      { decision: 'grant', reason: 'Fair.' },
      asHuman(moderator),
    );
    assert.equal(granted.statusCode, 303, granted.body);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);
    const notAnAppeal = await postForm(
      '/moderation/appeals/nope',
      { decision: 'grant', reason: 'x' },
      asHuman(moderator),
    );
    assertPage(notAnAppeal, 404);
  });

  test('the console: restore what was removed, unsuspend who is suspended, suspend for a day, filter the log; names, never ids', async () => {
    const [author, spammer] = await Promise.all([registerTypedBot(t.app), registerTypedBot(t.app)]);
    const post = await createPost(t.app, author.api_key, { title: 'A quiet harbour' });
    const moderator = await signInAsModerator(t, 'keeper');
    const console = () => t.app.inject({ url: '/moderation', headers: { cookie: moderator } });
    assert.equal(
      (
        await postForm(
          '/moderation/actions',
          { action: 'remove', target_type: 'post', target_id: post.id, reason: 'Looked like spam.' },
          asHuman(moderator),
        )
      ).statusCode,
      303,
    );
    const startedAt = Date.now();
    const suspended = await postForm(
      '/moderation/actions',
      {
        action: 'suspend',
        target_type: 'bot',
        target_id: spammer.bot.id,
        reason: 'Flooding.',
        length: '86400',
      },
      asHuman(moderator),
    );
    assert.equal(suspended.statusCode, 303, suspended.body);
    const standing = (await t.app.inject({ url: '/api/bots/me', headers: bearer(spammer.api_key) })).json()
      .standing as { until: string };
    const lasts = Date.parse(standing.until) - startedAt;
    assert.ok(lasts > 86_000_000 && lasts <= 86_400_000 + 60_000, `a day: ${standing.until}`);

    const page = await console();
    assertPage(page);
    assert.match(page.body, /<h2 id="removed-heading">Removed<\/h2>/);
    assert.match(
      page.body,
      new RegExp(
        `<a href="/posts/${post.id}" dir="auto">A quiet harbour</a> by <a href="/bot/${author.bot.name}">`,
      ),
    );
    assert.match(page.body, /Restore the post/);
    assert.match(page.body, new RegExp(`<a href="/bot/${spammer.bot.name}">${spammer.bot.name}</a>`));
    assert.match(page.body, new RegExp(`Unsuspend ${spammer.bot.name}`));
    assert.match(
      page.body,
      new RegExp(
        `@keeper suspended the bot <a href="/bot/${spammer.bot.name}" dir="auto">${spammer.bot.name}</a> until`,
      ),
    );
    const logPart = page.body.slice(page.body.indexOf('id="log-heading"'));
    assert.doesNotMatch(
      logPart.replace(/href="[^"]*"/g, ''),
      new RegExp(`${post.id}|${spammer.bot.id}`),
      'the log shows names, not ids (ids only in its links)',
    );

    // The log filtered: by action, by moderator, by a bot's name.
    const suspensions = await t.app.inject({
      url: `/moderation?action=suspend&moderator=keeper&target_type=bot&target=${spammer.bot.name}`,
      headers: { cookie: moderator },
    });
    assertPage(suspensions);
    const filtered = suspensions.body.slice(suspensions.body.indexOf('id="log-heading"'));
    assert.match(filtered, /@keeper suspended the bot/);
    assert.doesNotMatch(filtered, /removed the post/);
    assert.match(filtered, /<option value="suspend" selected>/);
    const none = await t.app.inject({
      url: '/moderation?target_type=post&target=not-an-id',
      headers: { cookie: moderator },
    });
    assert.match(none.body, /No action matches\./);

    // Restore and unsuspend, each from its own form.
    const restored = await postForm(
      '/moderation/actions',
      { action: 'restore', target_type: 'post', target_id: post.id, reason: 'Not spam after all.' },
      asHuman(moderator),
    );
    assert.equal(restored.headers.location, '/moderation?done=restore');
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);
    const lifted = await postForm(
      '/moderation/actions',
      { action: 'unsuspend', target_type: 'bot', target_id: spammer.bot.id, reason: 'Calmer now.' },
      asHuman(moderator),
    );
    assert.equal(lifted.headers.location, '/moderation?done=unsuspend');
    const after = await console();
    assert.match(after.body, /Nothing is removed\./);
    assert.match(after.body, /No bot is suspended\./);
    // The dismiss form says nobody is told.
    assert.doesNotMatch(after.body, /Reason \(the bot reads it\)<\/label><input id="[^"]*-dismiss-reason/);
  });

  test('anyone else gets the 403 page: signed in without the role, or not signed in', async () => {
    const person = await signIn(t);
    const refused = await t.app.inject({ url: '/moderation', headers: { cookie: person } });
    assertPage(refused, 403);
    assert.match(refused.body, /Only moderators/);
    const anonymous = await t.app.inject({ url: '/moderation', headers: { accept: 'text/html' } });
    assertPage(anonymous, 403);
    const bot = await registerBot(t.app);
    const form = await postForm(
      '/moderation/actions',
      { action: 'suspend', target_type: 'bot', target_id: bot.bot.id, reason: 'No.' },
      asHuman(person),
    );
    assertPage(form, 403);
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(bot.api_key) })).json().standing.suspended,
      false,
    );
  });
});

describe('a creator (/creator/{handle}) and /me, continued', () => {
  test("a bot's new key is issued from /me, shown once on that answer only, never cached; the old key stops", async () => {
    const cookie = await signIn(t);
    await postForm('/me/creator', { handle: 'keeper', display_name: 'Keeper' }, asHuman(cookie));
    const { bot, api_key: oldKey, claim_code } = await registerTypedBot(t.app);
    await postForm('/me/claim', { claim_code }, asHuman(cookie));
    const me = await t.app.inject({ url: '/me', headers: { cookie } });
    // Two steps: the warning opens first, and only the button inside it replaces the key.
    assert.match(
      me.body,
      new RegExp(
        `<details class="confirm"><summary>New API key…</summary><p>Every key of ${bot.name} stops working at once[^<]*</p><form method="post" action="/me/bots/${bot.id}/keys"`,
      ),
    );

    const rotated = await postForm(`/me/bots/${bot.id}/keys`, {}, asHuman(cookie));
    assertPage(rotated);
    assert.equal(rotated.headers['cache-control'], 'private, no-store');
    assert.equal(rotated.headers.location, undefined, 'the key is in this answer, not behind a redirect');
    const newKey = /<code class="secret">(bp_[0-9A-Za-z]{38})<\/code>/.exec(rotated.body)?.[1];
    assert.ok(newKey, rotated.body.slice(0, 2000));
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(oldKey) })).statusCode, 401);
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(newKey) })).statusCode, 200);
    assert.doesNotMatch((await t.app.inject({ url: '/me', headers: { cookie } })).body, new RegExp(newKey));
    assert.ok(!t.logs.some((line) => line.includes(newKey)), 'the key is never logged');

    // Someone else's bot, or none: a 404 on the page, and no key.
    const stranger = await registerTypedBot(t.app);
    const refused = await postForm(`/me/bots/${stranger.bot.id}/keys`, {}, asHuman(cookie));
    assertPage(refused, 404);
    assert.doesNotMatch(refused.body, /class="secret"/);
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(stranger.api_key) })).statusCode,
      200,
    );
  });

  test('/me says up front that a profile comes before a claim, and a claim without one says so in words for a person', async () => {
    const cookie = await signIn(t);
    const me = await t.app.inject({ url: '/me', headers: { cookie } });
    assertPage(me);
    const firstSteps = /<p class="notice" id="first-steps">([\s\S]*?)<\/p>/.exec(me.body)?.[1] ?? '';
    assert.match(firstSteps, /first create your creator profile/);
    assert.ok(
      me.body.indexOf('id="first-steps"') < me.body.indexOf('id="profile-heading"'),
      'before the forms',
    );

    const { claim_code } = await registerTypedBot(t.app);
    const refused = await postForm('/me/claim', { claim_code }, asHuman(cookie));
    assertPage(refused, 409);
    assert.match(refused.body, /Create your creator profile first \(the form above\), then claim the bot\./);
    assert.doesNotMatch(refused.body, /\/api\/|PUT |POST /, 'no API in words for people');

    await postForm('/me/creator', { handle: 'stepper', display_name: 'Stepper' }, asHuman(cookie));
    const after = await t.app.inject({ url: '/me', headers: { cookie } });
    assert.doesNotMatch(after.body, /id="first-steps"/, 'said only while it is the next step');
  });

  test('bad form input is shown on the form (400), a used code is a 409 on the form', async () => {
    const cookie = await signIn(t);
    const bad = await postForm('/me/creator', { handle: 'x', display_name: '' }, asHuman(cookie));
    assertPage(bad, 400);
    assert.match(bad.body, /There is a problem/);
    assert.match(bad.body, /id="handle-error"/);

    const unknown = await postForm('/me/claim', { claim_code: 'bp_claim_nothing' }, asHuman(cookie));
    assert.ok([400, 404, 409].includes(unknown.statusCode), unknown.body);
    assertPage(unknown, unknown.statusCode);
    assert.match(unknown.body, /id="claim_code-error"/);
    assert.match(unknown.body, /name="claim_code"[^>]*value="bp_claim_nothing"/, 'the code typed stays');
    assert.match(unknown.body, /name="claim_code"[^>]*aria-invalid="true"/);
  });

  test('a form posted from another site is refused with an HTML 403 page, and changes nothing', async () => {
    const cookie = await signIn(t);
    const forged = await postForm(
      '/me/creator',
      { handle: 'mallory', display_name: 'Mallory' },
      { cookie, origin: 'https://evil.example' },
    );
    assertPage(forged, 403);
    assert.equal((await t.app.inject({ url: '/creator/mallory' })).statusCode, 404);
  });

  test('/me without a session goes to sign-in; an unknown handle is an HTML 404 page', async () => {
    const me = await t.app.inject({ url: '/me' });
    assert.equal(me.statusCode, 303);
    assert.equal(me.headers.location, '/sign-in?next=%2Fme');
    assertPage(await t.app.inject({ url: '/creator/nobody' }), 404);
  });
});

describe('/sign-in', () => {
  test('mails a link that lands on /me', async () => {
    const form = await t.app.inject({ url: '/sign-in' });
    assertPage(form);
    const asked = await postForm(
      '/sign-in',
      { email: 'page@example.com', next: '/me' },
      { origin: ourOrigin },
    );
    assertPage(asked);
    // No SMTP_URL here (as on a development server): the page says where the link went.
    assert.match(asked.body, /<h1>Your link is in the server's log<\/h1>/);
    assert.match(asked.body, /no mail server set up \(<code>SMTP_URL<\/code>\)/);
    assert.match(asked.body, /begins “Sign-in link for page@example.com”/);
    const logged = t.logs
      .map((line) => JSON.parse(line) as { msg?: string })
      .find((line) => line.msg?.startsWith('Sign-in link for page@example.com'));
    assert.match(
      logged?.msg ?? '',
      /^Sign-in link for page@example\.com \(not mailed: no SMTP_URL\): http:\/\/\S+\/api\/auth\/email\/callback\?token=/,
    );
  });

  test('an invalid address is shown on the form', async () => {
    const asked = await postForm('/sign-in', { email: 'not an address' }, { origin: ourOrigin });
    assertPage(asked, 400);
    assert.match(asked.body, /id="email-error"/);
  });
});

describe('/creator-test', () => {
  test('scores the answers; saved to the profile when signed in with one', async () => {
    const form = await t.app.inject({ url: '/creator-test' });
    assertPage(form);
    assert.match(form.body, /type="radio"/);
    const anonymous = await postForm('/creator-test', creatorAnswersLike('gardener'), { origin: ourOrigin });
    assertPage(anonymous);
    assert.match(anonymous.body, /class="badge type-gardener">gardener/);
    assert.match(anonymous.body, /Not saved: sign in/);

    const cookie = await signIn(t);
    const profile = await postForm(
      '/me/creator',
      { handle: 'tester', display_name: 'Tester' },
      asHuman(cookie),
    );
    assert.equal(profile.statusCode, 303);
    const saved = await postForm('/creator-test', creatorAnswersLike('forge'), asHuman(cookie));
    assertPage(saved);
    assert.match(saved.body, /Saved to your creator profile/);
    const creator = await t.app.inject({ url: '/creator/tester' });
    assert.match(creator.body, /class="badge type-forge">forge/);
  });

  test('unanswered statements are named on the form (400)', async () => {
    const answers = creatorAnswersLike('forge');
    const [first] = Object.keys(answers);
    delete answers[first!];
    const response = await postForm('/creator-test', answers, { origin: ourOrigin });
    assertPage(response, 400);
    assert.match(response.body, new RegExp(`id="answers-${first}-error"`));
  });
});

describe('forms given what a form never sends', () => {
  test("the review's requests are 400 or 415 pages, and nothing is logged at error level", async () => {
    const cookie = await signIn(t);
    const requests: Array<[string, Record<string, string>, string | undefined, number]> = [
      ['/sign-in', { origin: ourOrigin }, undefined, 400],
      ['/creator-test', { origin: ourOrigin }, undefined, 400],
      ['/me/creator', { ...asHuman(cookie), 'content-type': 'application/json' }, 'null', 415],
      ['/me/claim', { ...asHuman(cookie), 'content-type': 'application/json' }, '{"claim_code":5}', 415],
    ];
    for (const [url, headers, payload, status] of requests) {
      const response = await t.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
      assertPage(response, status);
    }
    assertNoErrorLogged(t.logs);
  });
});

describe('/analytics and unknown paths', () => {
  test('analytics shows the type distribution, activity and traits by type as SVG charts', async () => {
    await registerTypedBot(t.app);
    const response = await t.app.inject({ url: '/analytics' });
    assertPage(response);
    assert.match(response.body, /<title id="chart-bots-of-each-type">Bots of each type<\/title>/);
    assert.match(response.body, /Posts per day/);
    assert.match(response.body, /oracle: mean traits of 1 bot/);
  });

  test('a browser gets an HTML 404 page outside /api/; an API client still gets a problem document', async () => {
    assertPage(await t.app.inject({ url: '/no-such-page', headers: { accept: 'text/html' } }), 404);
    const api = await t.app.inject({ url: '/api/no-such-thing', headers: { accept: 'text/html' } });
    assert.equal(api.statusCode, 404);
    assert.match(String(api.headers['content-type']), /application\/problem\+json/);
  });
});

describe('the header and what people read in a text', () => {
  test('a moderator’s header links to /moderation; anyone else’s does not', async () => {
    const moderator = await signInAsModerator(t);
    const person = await signIn(t);
    const moderatorsPage = await t.app.inject({ url: '/analytics', headers: { cookie: moderator } });
    assertPage(moderatorsPage);
    assert.match(moderatorsPage.body, /<a href="\/moderation">Moderation<\/a>/);
    for (const cookie of [person, undefined]) {
      const other = await t.app.inject({ url: '/analytics', headers: cookie ? { cookie } : {} });
      assert.doesNotMatch(other.body, /href="\/moderation"/);
    }
    const me = await t.app.inject({ url: '/api/me', headers: asHuman(moderator) });
    assert.equal(me.json().moderator, true, 'getMe says so too');
  });

  test('an @name in a post links to that bot’s page; an address or an e-mail address is not a mention', async () => {
    const { api_key } = await registerBot(t.app);
    const post = await createPost(t.app, api_key, {
      body: 'Thanks @ada-7. See https://example.com/@nobody and mail me@example.com; cc @grace.',
    });
    const page = await t.app.inject({ url: `/posts/${post.id}` });
    assertPage(page);
    assert.match(page.body, /<a href="\/bot\/ada-7">@ada-7<\/a>\./);
    assert.match(page.body, /<a href="\/bot\/grace">@grace<\/a>\./);
    assert.doesNotMatch(page.body, /href="\/bot\/nobody"|href="\/bot\/example\.com"/);
  });
});
