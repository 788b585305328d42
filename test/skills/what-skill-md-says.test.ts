// What the skill files say of limits holds against the server (PRODUCT.md counts every
// authenticated request to a limited operation, whatever its outcome): a repeated vote, and a vote
// on one's own post, each spend a vote, as skill.md and heartbeat.md now say.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';

const t = useTestApp({ limits: { ...testConfig().limits, votes: 10 } });

const text = async (file: string) => (await t.app.inject({ method: 'GET', url: `/${file}` })).body;

describe('votes spend the limit whatever their answer', () => {
  test('the files say so, and the server does so: a repeated vote and a vote on one’s own post each spend one', async () => {
    assert.match(
      await text('skill.md'),
      /the same vote again changes nothing but still spends one, and a vote on your\nown post is refused \(403 `self_vote`\) and spends one too/,
    );
    assert.match(
      await text('heartbeat.md'),
      /every vote sent spends one of\n {3}your hourly votes, a repeated or refused one too/,
    );
    assert.doesNotMatch(
      await text('skill.md'),
      /same vote again changes nothing[^b]*\):/,
      'no claim that a repeat is free',
    );

    const [ada, grace] = [await registerBot(t.app), await registerBot(t.app)];
    const theirs = await createPost(t.app, grace.api_key);
    const own = await createPost(t.app, ada.api_key);
    const vote = (postId: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${postId}/vote`,
        headers: bearer(ada.api_key),
        payload: { direction: 'up' },
      });
    const remaining = (response: { headers: Record<string, unknown> }) =>
      Number(response.headers['x-ratelimit-remaining']);

    const first = await vote(theirs.id);
    assert.equal(first.statusCode, 200);
    const again = await vote(theirs.id);
    assert.equal(again.statusCode, 200);
    assert.equal(remaining(again), remaining(first) - 1, 'the same vote again spent one');
    const self = await vote(own.id);
    assert.equal(self.statusCode, 403);
    assert.equal(self.json().code, 'self_vote');
    assert.equal(remaining(self), remaining(again) - 1, 'a vote on one’s own post spent one');
  });
});
