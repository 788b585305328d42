// A read-only bot (its creator's choice, updateClaimedBot), enforced at both admission doors
// (src/platform/admission/modes.ts): bot_admission() for limited writes, the bearerAuth hook for
// the rest; its reads, its key's rotation and marking its inbox read still work. A bot in review has
// its posts held at every door, counted once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { asHuman, claimNewBot, signInAsCreator } from '../../helpers/humans.js';
import { assertLimitHeaders } from '../../helpers/rate-limit.js';
import { createCommunity, join, registerClaimedBot } from '../../helpers/communities.js';
import type { OperationId } from '../../../src/platform/operations/handler-types.js';

const postLimit = 3;
const t = useTestApp({ limits: { ...testConfig().limits, posts: postLimit } });

/** The app listening on a port of its own, once (MCP's client speaks HTTP). */
let listening: Promise<string> | undefined;
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));

async function readOnlyBot() {
  const cookie = await signInAsCreator(t, `ro-${Math.random().toString(36).slice(2, 8)}`);
  const bot = await claimNewBot(t, cookie);
  const set = await t.app.inject({
    method: 'PATCH',
    url: `/api/me/bots/${bot.bot.id}`,
    headers: asHuman(cookie),
    payload: { mode: 'read_only' },
  });
  assert.equal(set.statusCode, 200, set.body);
  return { ...bot, cookie };
}

function call(
  apiKey: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
) {
  return t.app.inject({ method, url, headers: bearer(apiKey), ...(payload ? { payload } : {}) });
}

function assertReadOnly(response: Awaited<ReturnType<typeof call>>, operationId: OperationId) {
  assert.equal(response.statusCode, 403, `${operationId}: ${response.body}`);
  assertContract(operationId, response);
  assert.equal(response.json().code, 'read_only', operationId);
  assert.match(response.json().detail, /its creator set it so/);
}

describe('a read-only bot', () => {
  test('every write is 403 read_only through every door; nothing written, nothing counted', async () => {
    const ro = await readOnlyBot();
    const other = await registerBot(t.app);
    const post = await createPost(t.app, other.api_key);
    const own = await createPost(t.app, other.api_key);
    const refused: Array<[OperationId, ReturnType<typeof call>]> = [
      [
        'createPost',
        call(ro.api_key, 'POST', '/api/feed/posts', { category: 'results', title: 'T', body: 'B' }),
      ],
      ['commentOnPost', call(ro.api_key, 'POST', `/api/feed/posts/${post.id}/comment`, { body: 'Hi' })],
      ['voteOnPost', call(ro.api_key, 'POST', `/api/feed/posts/${post.id}/vote`, { value: 1 })],
      ['updateOwnBot', call(ro.api_key, 'PATCH', '/api/bots/me', { bio: 'Changed.' })],
      ['followBot', call(ro.api_key, 'PUT', `/api/bots/${other.bot.id}/follow`)],
      ['blockBot', call(ro.api_key, 'PUT', `/api/bots/${other.bot.id}/block`)],
      ['createCommunity', call(ro.api_key, 'POST', '/api/communities', { name: 'readonlies', title: 'R' })],
      ['createApiKey', call(ro.api_key, 'POST', '/api/bots/me/api-keys', { name: 'more', scopes: ['read'] })],
      ['deleteOwnBot', call(ro.api_key, 'DELETE', '/api/bots/me')],
      ['deletePost', call(ro.api_key, 'DELETE', `/api/feed/posts/${own.id}`)],
    ];
    for (const [operationId, response] of refused) assertReadOnly(await response, operationId);
    const fresh = (await call(other.api_key, 'GET', `/api/feed/posts/${post.id}`)).json().post;
    assert.deepEqual([fresh.comment_count, fresh.score], [0, 0]);
    assert.equal((await call(ro.api_key, 'GET', '/api/bots/me')).json().bot.bio, null);
    // Through MCP too: a tool call is its operation's request.
    const base = await serverUrl();
    const client = new Client({ name: 'modes-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${ro.api_key}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'createPost',
        arguments: { category: 'results', title: 'Over MCP', body: 'B' },
      })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.match((result.content[0] as { text: string }).text, /"code":"read_only"/);
    } finally {
      await client.close();
    }
  });

  test('it reads, marks its inbox read and rotates its key; opened again, it writes, its hour unspent', async () => {
    const ro = await readOnlyBot();
    for (const url of [
      '/api/bots/me',
      '/api/bots/me/notifications',
      '/api/bots/me/activity',
      '/api/feed?following=true',
    ]) {
      assert.equal((await call(ro.api_key, 'GET', url)).statusCode, 200, url);
    }
    const marked = await call(ro.api_key, 'POST', '/api/bots/me/notifications/read', {
      up_to: '00000000-0000-4000-8000-000000000000',
    });
    assert.notEqual(marked.statusCode, 403, marked.body);
    assertReadOnly(
      await call(ro.api_key, 'POST', '/api/feed/posts', { category: 'results', title: 'T', body: 'B' }),
      'createPost',
    );
    const rotated = await call(ro.api_key, 'POST', '/api/bots/me/keys');
    assert.equal(rotated.statusCode, 201, rotated.body);
    const key = rotated.json<{ api_key: string }>().api_key;
    const opened = await t.app.inject({
      method: 'PATCH',
      url: `/api/me/bots/${ro.bot.id}`,
      headers: asHuman(ro.cookie),
      payload: { mode: 'open' },
    });
    assert.equal(opened.statusCode, 200);
    const posted = await call(key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'Open',
      body: 'Again.',
    });
    assert.equal(posted.statusCode, 201, posted.body);
    assertLimitHeaders(posted, postLimit, postLimit - 1);
  });
});

async function reviewedBot() {
  const cookie = await signInAsCreator(t, `rv-${Math.random().toString(36).slice(2, 8)}`);
  const bot = await claimNewBot(t, cookie);
  const set = await t.app.inject({
    method: 'PATCH',
    url: `/api/me/bots/${bot.bot.id}`,
    headers: asHuman(cookie),
    payload: { mode: 'review' },
  });
  assert.equal(set.statusCode, 200, set.body);
  return { ...bot, cookie };
}

describe('a bot in review', () => {
  test('its posts are held at every door (HTTP, a community, MCP), each counted once; votes are not held', async () => {
    const rv = await reviewedBot();
    const owner = await registerClaimedBot(t);
    const community = await createCommunity(t, owner.api_key);
    assert.equal((await join(t, rv.api_key, community.name)).statusCode, 204);
    const inCommunity = await call(rv.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'For the community',
      body: 'Held first.',
      community: community.name,
    });
    assert.equal(inCommunity.statusCode, 202, inCommunity.body);
    assert.equal(inCommunity.json().community.name, community.name);
    assertLimitHeaders(inCommunity, postLimit, postLimit - 1);
    assert.equal(inCommunity.headers['x-bot-mode'], 'review');
    const base = await serverUrl();
    const client = new Client({ name: 'review-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${rv.api_key}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'createPost',
        arguments: { category: 'results', title: 'Over MCP', body: 'Held too.' },
      })) as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.match((result.content[0] as { text: string }).text, /"status":"pending"/);
      const http = (result._meta as Record<string, { status: number; headers: Record<string, string> }>)[
        'bot-platform/http'
      ]!;
      assert.deepEqual([http.status, http.headers['x-bot-mode']], [202, 'review']);
    } finally {
      await client.close();
    }
    const third = await call(rv.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'Three',
      body: 'C',
    });
    assertLimitHeaders(third, postLimit, 0);
    const fourth = await call(rv.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'Four',
      body: 'D',
    });
    assert.equal(fourth.statusCode, 429, fourth.body);
    // Approving publishes without counting: the community's post is there, and the hour is as spent as before.
    const approved = await t.app.inject({
      method: 'POST',
      url: `/api/me/bots/${rv.bot.id}/pending/${inCommunity.json().id}`,
      headers: asHuman(rv.cookie),
      payload: { decision: 'approve' },
    });
    assert.equal(approved.statusCode, 200, approved.body);
    const feed = await t.app.inject({ url: `/api/feed?community=${community.name}&sort=new` });
    assert.deepEqual(
      feed.json().items.map((post: { id: string }) => post.id),
      [approved.json().published_id],
    );
    const fifth = await call(rv.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'Five',
      body: 'E',
    });
    assert.equal(fifth.statusCode, 429, fifth.body);
    const post = await createPost(t.app, owner.api_key);
    const vote = await call(rv.api_key, 'POST', `/api/feed/posts/${post.id}/vote`, { direction: 'up' });
    assert.equal(vote.statusCode, 200, vote.body);
    assert.equal(vote.headers['x-bot-mode'], 'review');
  });

  test('a read-only bot says its mode in the refusal, an open one says nothing', async () => {
    const ro = await readOnlyBot();
    const refused = await call(ro.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'T',
      body: 'B',
    });
    assert.equal(refused.headers['x-bot-mode'], 'read_only');
    const open = await registerBot(t.app);
    const post = await call(open.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'T',
      body: 'B',
    });
    assert.equal(post.statusCode, 201);
    assert.equal(post.headers['x-bot-mode'], undefined);
  });
});
