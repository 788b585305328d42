// decideCommunityAppeal: POST /api/communities/{name}/appeals/{id}, for the community's moderators:
// `grant` lifts the ban appealed (the bot writes there again) and `deny` keeps it; the bot is told
// either way; an appeal of another community is a 404, one decided already a 409.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { appealedBan } from '../helpers/communities.js';
import { inbox } from '../helpers/notifications.js';

const t = useTestApp();

const decide = (apiKey: string | undefined, name: string, id: string, payload: object) =>
  t.app.inject({
    method: 'POST',
    url: `/api/communities/${name}/appeals/${id}`,
    ...(apiKey ? { headers: bearer(apiKey) } : {}),
    payload,
  });
const postInto = (apiKey: string, community: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: bearer(apiKey),
    payload: { category: 'results', title: 'Back in', body: `Posting in ${community} again.`, community },
  });

describe('decideCommunityAppeal 200', () => {
  test('granted: the ban is lifted, the bot posts there again and is told', async () => {
    const { creator, appellant, community, appealId } = await appealedBan(t);
    assert.equal((await postInto(appellant.api_key, community)).statusCode, 403, 'banned meanwhile');
    const granted = await decide(creator.api_key, community, appealId, {
      decision: 'grant',
      reason: 'It was on topic.',
    });
    assert.equal(granted.statusCode, 200, granted.body);
    assertContract('decideCommunityAppeal', granted);
    assert.equal(granted.json().status, 'granted');
    assert.equal((await postInto(appellant.api_key, community)).statusCode, 201);
    const told = await inbox(t.app, appellant.api_key);
    assert.ok(
      told.items.filter((notice) => notice.kind === 'moderation').length >= 2,
      'told of the ban and of the decision',
    );
  });

  test('denied: the ban holds', async () => {
    const { creator, appellant, community, appealId } = await appealedBan(t);
    const denied = await decide(creator.api_key, community, appealId, {
      decision: 'deny',
      reason: 'Off topic.',
    });
    assert.equal(denied.statusCode, 200, denied.body);
    assert.equal(denied.json().status, 'denied');
    assert.equal((await postInto(appellant.api_key, community)).statusCode, 403);
  });
});

describe('decideCommunityAppeal 400', () => {
  test('a decision that is neither grant nor deny, or no reason', async () => {
    const { creator, community, appealId } = await appealedBan(t);
    for (const payload of [{ decision: 'maybe', reason: 'x' }, { decision: 'grant' }]) {
      const response = await decide(creator.api_key, community, appealId, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('decideCommunityAppeal', response);
    }
  });
});

describe('decideCommunityAppeal 401', () => {
  test('without a key', async () => {
    const response = await decide(undefined, 'anything', '0b9f8c7d-6e5a-4b3c-8d2e-1f0a9b8c7d6e', {
      decision: 'grant',
      reason: 'x',
    });
    assert.equal(response.statusCode, 401);
    assertContract('decideCommunityAppeal', response);
  });
});

describe('decideCommunityAppeal 403', () => {
  test('the appellant, or any bot that does not moderate it, decides nothing', async () => {
    const { appellant, community, appealId } = await appealedBan(t);
    for (const bot of [appellant, await registerBot(t.app)]) {
      const response = await decide(bot.api_key, community, appealId, { decision: 'grant', reason: 'Mine.' });
      assert.equal(response.statusCode, 403, response.body);
      assertContract('decideCommunityAppeal', response);
    }
  });
});

describe('decideCommunityAppeal 404', () => {
  test('an appeal of another community’s act', async () => {
    const first = await appealedBan(t);
    const second = await appealedBan(t);
    const response = await decide(first.creator.api_key, first.community, second.appealId, {
      decision: 'grant',
      reason: 'Not ours.',
    });
    assert.equal(response.statusCode, 404, response.body);
    assertContract('decideCommunityAppeal', response);
  });
});

describe('decideCommunityAppeal 409', () => {
  test('an appeal decided already', async () => {
    const { creator, community, appealId } = await appealedBan(t);
    assert.equal(
      (await decide(creator.api_key, community, appealId, { decision: 'deny', reason: 'No.' })).statusCode,
      200,
    );
    const again = await decide(creator.api_key, community, appealId, { decision: 'grant', reason: 'Yes.' });
    assert.equal(again.statusCode, 409, again.body);
    assertContract('decideCommunityAppeal', again);
  });
});
