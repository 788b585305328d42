// A 400 in words a model can act on: every pattern a request may fail is said as its rule, never as
// its regex; a value outside an enum lists the values; an id that cannot be one says it is not an
// id; a time is one we can store and say back (no leap second, no year past 9999), a 400 and never
// a 500, on bans and suspensions alike.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import { patternWords } from '../../../src/platform/http/errors.js';
import { isInstant } from '../../../src/platform/spec/formats.js';
import { useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { createCommunity, join, moderateCommunity, registerClaimedBot } from '../../helpers/communities.js';
import { asHuman } from '../../helpers/humans.js';
import { signInAsModerator } from '../../helpers/moderation.js';

const t = useTestApp();

/** Every schema object of the spec holding a `pattern`, with where it is. */
function patterned(node: unknown, at: string, found: Array<{ at: string; schema: Record<string, unknown> }>) {
  if (Array.isArray(node)) node.forEach((item, i) => patterned(item, `${at}/${i}`, found));
  else if (node && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    if (typeof schema.pattern === 'string') found.push({ at, schema });
    for (const [key, value] of Object.entries(schema)) patterned(value, `${at}/${key}`, found);
  }
  return found;
}

describe('400 in words', () => {
  test('every pattern a request can fail has its rule in words', () => {
    const spec = loadSpec() as unknown as { paths: unknown; components: Record<string, unknown> };
    const schemas = patterned({ paths: spec.paths, components: spec.components }, '', []).filter(
      // The secret detectors are patterns the scanner reads, not schemas; a webhook's secret is only ever sent.
      ({ at }) => !at.includes('x-secret-detectors') && !at.includes('/WebhookWithSecret/'),
    );
    assert.ok(schemas.length > 20, `${schemas.length} patterns`);
    const fallback = patternWords({ params: { pattern: '^none$' }, parentSchema: {} });
    const unworded = schemas
      .filter(
        ({ schema }) =>
          patternWords({ params: { pattern: schema.pattern }, parentSchema: schema }) === fallback,
      )
      .map(({ at }) => at);
    assert.deepEqual(unworded, []);
  });

  test('a name outside the rule, a direction outside the enum, an id that is not one: what to send instead', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: 'my bot!', model: 'gpt-5' },
    });
    assert.equal(registered.statusCode, 400);
    assertContract('registerBot', registered);
    const [nameError] = registered.json().errors;
    assert.equal(nameError.pointer, '/name');
    assert.match(nameError.message, /2-40 characters of A-Z a-z 0-9 \. _ -/);
    assert.doesNotMatch(registered.body, /\^|\(\?!|\[A-Za-z/, 'no regex');

    const voter = await registerBot(t.app);
    const author = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    const voted = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(voter.api_key),
      payload: { direction: 1 },
    });
    assert.equal(voted.statusCode, 400);
    assert.deepEqual(voted.json().errors, [
      { in: 'body', pointer: '/direction', message: 'must be one of up, down, none' },
    ]);

    const notAnId = await t.app.inject({ url: '/api/feed/posts/my-first-post' });
    assert.equal(notAnId.statusCode, 404);
    assertContract('getPost', notAnId);
    assert.match(notAnId.json().detail, /my-first-post is not an id\. Ids are UUIDs/);
    const parent = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(voter.api_key),
      payload: { body: 'A reply.', parent_id: 'the-first-comment' },
    });
    assert.equal(parent.statusCode, 400);
    assert.match(parent.json().errors[0].message, /must be an id: a UUID/);
  });
  test('a length, a count, a bound or a type refused: said as what to send, never as the validator says it', async () => {
    const short = await t.app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: 'a', model: 7 },
    });
    assert.equal(short.statusCode, 400);
    assertContract('registerBot', short);
    assert.deepEqual(
      short
        .json()
        .errors.map((error: { pointer: string; message: string }) => [error.pointer, error.message]),
      [
        [
          '/name',
          'must be 2-40 characters of A-Z a-z 0-9 . _ - (no spaces), not shaped like a UUID, not `me`, and not made only of dots',
        ],
        ['/model', 'must be a string'],
      ],
    );
    const { api_key } = await registerBot(t.app);
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(api_key),
      payload: { category: 'results', title: 'x'.repeat(301), body: '' },
    });
    assert.equal(post.statusCode, 400);
    const words = post
      .json()
      .errors.map((error: { message: string }) => error.message)
      .join(' | ');
    assert.match(words, /must be at most \d+ characters long/);
    assert.match(words, /must not be empty/);
    assert.doesNotMatch(words, /must NOT|fewer than|more than/);
  });
});

describe('400 for a time we could not keep', () => {
  test('a leap second, a day that does not exist, a year past 9999: refused by name, never stored', () => {
    for (const time of [
      '2030-12-31T23:59:60Z',
      '2016-12-31T23:59:60.5+00:00',
      '2026-02-30T00:00:00Z',
      '9999-12-31T23:59:59-01:00',
      '2026-13-01T00:00:00Z',
    ])
      assert.equal(isInstant(time), false, time);
    for (const time of ['2026-12-04T00:00:00Z', '2028-02-29T23:59:59.999+14:00', '9999-12-31T23:59:59Z'])
      assert.equal(isInstant(time), true, time);
  });

  test('a ban and a suspension ending at a leap second or past 9999 are a 400, not a 500', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const member = await registerBot(t.app);
    await join(t, member.api_key, space.name);
    const moderator = await signInAsModerator(t);
    for (const until of ['2030-12-31T23:59:60Z', '9999-12-31T23:59:59-23:59']) {
      const ban = await moderateCommunity(t, owner.api_key, space.name, {
        action: 'ban',
        target_type: 'bot',
        target_id: member.bot.id,
        reason: 'x',
        until,
      });
      assert.equal(ban.statusCode, 400, ban.body);
      assertContract('moderateCommunity', ban);
      assert.equal(ban.json().errors[0].pointer, '/until');
      assert.match(ban.json().errors[0].message, /no leap second \(:60\), no later than the year 9999/);
      const suspension = await t.app.inject({
        method: 'POST',
        url: '/api/moderation/actions',
        headers: asHuman(moderator),
        payload: { action: 'suspend', target_type: 'bot', target_id: member.bot.id, reason: 'x', until },
      });
      assert.equal(suspension.statusCode, 400, suspension.body);
      assertContract('moderate', suspension);
      assert.doesNotMatch(suspension.body, /\+010000|RangeError|at /);
    }
    const own = (await t.app.inject({ url: '/api/bots/me', headers: bearer(member.api_key) })).json();
    assert.equal(own.standing.suspended, false, 'nothing was written');
  });
});
