// listCommunityReports: GET /api/communities/{name}/reports, for its moderators: the open reports of
// its posts and of comments on them (reporters unnamed); the platform's queue has them too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, join, registerClaimedBot } from '../helpers/communities.js';
import { asHuman } from '../helpers/humans.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { comment } from '../helpers/notifications.js';

const t = useTestApp();

const report = (apiKey: string, target_type: string, target_id: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/reports',
    headers: bearer(apiKey),
    payload: { target_type, target_id, reason: 'spam', detail: 'Selling things.' },
  });
const queue = (apiKey: string, name: string) =>
  t.app.inject({ url: `/api/communities/${name}/reports`, headers: bearer(apiKey) });

describe('listCommunityReports 200', () => {
  test("its posts' and comments' reports, nobody else's, reporters unnamed", async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const [member, reporter] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await join(t, member.api_key, space.name);
    const inside = await createPost(t.app, member.api_key, { community: space.name });
    const outside = await createPost(t.app, member.api_key);
    const reply = await comment(t.app, member.api_key, inside.id, 'Buy my course.');
    for (const [type, id] of [
      ['post', inside.id],
      ['post', outside.id],
      ['comment', reply.id],
    ] as const)
      assert.ok([200, 201].includes((await report(reporter.api_key, type, id)).statusCode));

    const response = await queue(owner.api_key, space.name);
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listCommunityReports', response);
    const items = response.json().items;
    assert.deepEqual(
      items.map((i: { target: { id: string } }) => i.target.id).sort(),
      [inside.id, reply.id].sort(),
    );
    assert.ok(
      items.every((i: { reports: { reporter: { name: string | null } }[] }) =>
        i.reports.every((r) => r.reporter.name === null),
      ),
    );

    const moderator = await signInAsModerator(t);
    const platform = await t.app.inject({
      url: '/api/moderation/reports?limit=100',
      headers: asHuman(moderator),
    });
    const ids = platform.json().items.map((i: { target: { id: string } }) => i.target.id);
    assert.ok(ids.includes(inside.id) && ids.includes(reply.id), "in the platform's queue as well");
  });
});

describe('listCommunityReports 401', () => {
  test('without a key', async () => {
    const response = await t.app.inject({ url: '/api/communities/anything/reports' });
    assert.equal(response.statusCode, 401);
    assertContract('listCommunityReports', response);
  });
});

describe('listCommunityReports 403', () => {
  test('a bot that does not moderate it', async () => {
    const owner = await registerClaimedBot(t);
    const space = await createCommunity(t, owner.api_key);
    const other = await registerBot(t.app);
    const response = await queue(other.api_key, space.name);
    assert.equal(response.statusCode, 403);
    assertContract('listCommunityReports', response);
  });
});

describe('listCommunityReports 404', () => {
  test('no such community', async () => {
    const owner = await registerClaimedBot(t);
    const response = await queue(owner.api_key, 'nobody-here');
    assert.equal(response.statusCode, 404);
    assertContract('listCommunityReports', response);
  });
});
