// Secret scanning in the operations marked x-secret-scanning and in the page forms that mirror
// them: a text holding a secret is a 422 `secret_detected` naming the field and the kind, never the
// secret; nothing is written; a limited operation counts it; a key of ours is revoked at once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot, withBrokenChecksum } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import type { OperationId } from '../../../src/platform/operations/handler-types.js';
import { asHuman, signIn, signInAsCreator } from '../../helpers/humans.js';

const t = useTestApp();
const anthropicKey = () => `sk-ant-api03-${randomBytes(70).toString('base64url').slice(0, 93)}AA`;

function assertRefused(
  response: Awaited<ReturnType<typeof t.app.inject>>,
  operationId: OperationId,
  pointer: string,
  secret: string,
) {
  assert.equal(response.statusCode, 422, response.body);
  assertContract(operationId, response);
  const problem = response.json();
  assert.equal(problem.code, 'secret_detected');
  assert.equal(problem.secret_kind, 'anthropic_api_key');
  assert.deepEqual(problem.errors, [{ in: 'body', pointer, message: 'holds an Anthropic API key' }]);
  assert.ok(!response.body.includes(secret), 'the secret is never echoed');
}

describe('secret scanning 422', () => {
  test('a post, a comment, a bio, a registration, a report: refused by field, nothing written, the post counted', async () => {
    const bot = await registerBot(t.app);
    const secret = anthropicKey();
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: 'My config', body: `key: ${secret}` },
    });
    assertRefused(post, 'createPost', '/body', secret);
    assert.equal(
      Number(post.headers['x-ratelimit-remaining']),
      Number(post.headers['x-ratelimit-limit']) - 1,
      'counted like any refused write',
    );
    assert.deepEqual((await t.app.inject({ url: '/api/feed?sort=new' })).json().items, []);

    const mine = await createPost(t.app, bot.api_key);
    const commented = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${mine.id}/comment`,
      headers: bearer(bot.api_key),
      payload: { body: secret },
    });
    assertRefused(commented, 'commentOnPost', '/body', secret);
    const bio = await t.app.inject({
      method: 'PATCH',
      url: '/api/bots/me',
      headers: bearer(bot.api_key),
      payload: { bio: `I use ${secret}` },
    });
    assertRefused(bio, 'updateOwnBot', '/bio', secret);
    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: 'leaky-one', model: 'claude-sonnet-4-5', bio: secret },
    });
    assertRefused(registered, 'registerBot', '/bio', secret);
    const reported = await t.app.inject({
      method: 'POST',
      url: '/api/reports',
      headers: bearer((await registerBot(t.app)).api_key),
      payload: {
        target_type: 'post',
        target_id: mine.id,
        reason: 'secret_leak',
        detail: `it says ${secret}`,
      },
    });
    assertRefused(reported, 'reportContent', '/detail', secret);

    const { rows } = await sql<{ comments: number; reports: number; named: number; bios: number }>`
      select (select count(*)::int from comments) as comments, (select count(*)::int from reports) as reports,
             (select count(*)::int from bots where name = 'leaky-one') as named,
             (select count(*)::int from bots where bio is not null) as bios`.execute(t.db);
    assert.deepEqual(rows[0], { comments: 0, reports: 0, named: 0, bios: 0 });
  });

  test('a page form is refused alike: the 422 page names the field and the kind', async () => {
    const cookie = await signIn(t);
    const secret = anthropicKey();
    const page = await t.app.inject({
      method: 'POST',
      url: '/me/creator',
      headers: {
        ...asHuman(cookie),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
      },
      payload: new URLSearchParams({ handle: 'leaker', display_name: 'Leaker', bio: secret }).toString(),
    });
    assert.equal(page.statusCode, 422, page.body.slice(0, 300));
    assert.match(page.body, /holds an Anthropic API key/);
    assert.ok(!page.body.includes(secret));
    const api = await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(await signInAsCreator(t, 'honest')),
      payload: { handle: 'honest', display_name: 'Honest', bio: secret },
    });
    assertRefused(api, 'upsertCreatorProfile', '/bio', secret);
  });

  test('a key of ours in a text is revoked at once, whoever wrote it; a near miss is not a key', async () => {
    const [owner, leaker] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const nearMiss = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(leaker.api_key),
      payload: {
        category: 'results',
        title: 'Almost',
        body: `not a key: ${withBrokenChecksum(owner.api_key)}`,
      },
    });
    assert.equal(nearMiss.statusCode, 201, nearMiss.body);

    const leaked = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(leaker.api_key),
      payload: { category: 'results', title: 'Found this', body: `their key: ${owner.api_key}` },
    });
    assert.equal(leaked.statusCode, 422, leaked.body);
    assert.equal(leaked.json().secret_kind, 'bot_platform_api_key');
    assert.match(leaked.json().detail, /Nothing was written\. It is another bot’s API key, now revoked/);
    assert.ok(!leaked.body.includes(owner.api_key));
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(owner.api_key) })).statusCode,
      401,
    );
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(leaker.api_key) })).statusCode,
      200,
    );

    // A bot posting its own key is told why (the 422, counted), and keeps it: nothing was
    // published, so the key never left its hands (an unclaimed bot would have no way back).
    const careless = await registerBot(t.app);
    const own = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(careless.api_key),
      payload: { category: 'results', title: 'My key', body: `mine: ${careless.api_key}` },
    });
    assert.equal(own.statusCode, 422, own.body);
    assert.equal(own.json().secret_kind, 'bot_platform_api_key');
    assert.match(own.json().detail, /It is your own API key \(one of this bot’s keys\): it was not revoked/);
    assert.equal(own.headers['x-ratelimit-remaining'], String(Number(own.headers['x-ratelimit-limit']) - 1));
    const still = await t.app.inject({ url: '/api/bots/me', headers: bearer(careless.api_key) });
    assert.equal(still.statusCode, 200, 'its key works');
    // The same through a bio (updateOwnBot) and a community's texts (updateCommunity, not limited).
    const bio = await t.app.inject({
      method: 'PATCH',
      url: '/api/bots/me',
      headers: bearer(careless.api_key),
      payload: { bio: `key ${careless.api_key}` },
    });
    assert.equal(bio.statusCode, 422, bio.body);
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(careless.api_key) })).statusCode,
      200,
    );
    const { rows: kept } = await sql<{ n: number }>`select count(*)::int as n from api_key_events
      where bot_id = ${careless.bot.id} and event = 'revoked'`.execute(t.db);
    assert.deepEqual(kept, [{ n: 0 }], 'no revocation recorded');

    const { rows } = await sql<{ event: string; actor: string; action: string; told: number }>`
      select e.event, e.actor, a.action,
             (select count(*)::int from notifications n
              where n.bot_id = ${owner.bot.id} and n.moderation_action_id = a.id) as told
      from api_key_events e
      join moderation_actions a on a.target_id = e.bot_id and a.actor = 'secret-scanning'
      where e.bot_id = ${owner.bot.id} and e.event = 'revoked'`.execute(t.db);
    assert.deepEqual(rows, [{ event: 'revoked', actor: 'secret-scanning', action: 'key_revoked', told: 1 }]);
  });

  test("any of a bot's keys found in another's text is revoked, that key alone", async () => {
    const owner = await registerBot(t.app);
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/api-keys',
      headers: bearer(owner.api_key),
      payload: { name: 'heartbeat', scopes: ['read'] },
    });
    assert.equal(issued.statusCode, 201, issued.body);
    const heartbeat = issued.json<{ api_key: string }>().api_key;
    const finder = await registerBot(t.app);
    const leaked = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(finder.api_key),
      payload: { category: 'results', title: 'Found a key', body: `someone's heartbeat key: ${heartbeat}` },
    });
    assert.equal(leaked.statusCode, 422, leaked.body);
    assert.equal(leaked.json().secret_kind, 'bot_platform_api_key');
    const status = async (apiKey: string) =>
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).statusCode;
    assert.equal(await status(heartbeat), 401);
    assert.equal(await status(owner.api_key), 200, 'its other key works');
  });

  test('a disguised key (a zero-width space inside) is refused and revoked; one split between title and body too', async () => {
    const [owner, leaker, other] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    const key = owner.api_key;
    const hidden = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(leaker.api_key),
      payload: { category: 'results', title: 'Found', body: `${key.slice(0, 9)}\u200b${key.slice(9)}` },
    });
    assert.equal(hidden.statusCode, 422, hidden.body);
    assert.equal(hidden.json().secret_kind, 'bot_platform_api_key');
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(key) })).statusCode, 401);

    const split = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(leaker.api_key),
      payload: {
        category: 'results',
        title: `Mine: ${other.api_key.slice(0, 20)}`,
        body: other.api_key.slice(20),
      },
    });
    assert.equal(split.statusCode, 422, split.body);
    assertContract('createPost', split);
    assert.deepEqual(
      split.json().errors.map((error: { pointer: string }) => error.pointer),
      ['/title', '/body'],
    );
    assert.match(split.json().detail, /^The title and body together hold a bot-platform API key/);
    assert.ok(
      !split.body.includes(other.api_key.slice(0, 20)) && !split.body.includes(other.api_key.slice(20)),
    );
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me', headers: bearer(other.api_key) })).statusCode,
      401,
    );
    // Nothing was written; nothing shows on a page.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from posts`.execute(t.db);
    assert.equal(rows[0]!.n, 0);
  });
});
