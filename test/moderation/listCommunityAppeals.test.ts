// listCommunityAppeals: GET /api/communities/{name}/appeals, for the community's moderators: the
// appeals of its own acts, oldest first, each with the act it appeals; open by default.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { appealedBan } from '../helpers/communities.js';

const t = useTestApp();

const appeals = (apiKey: string | undefined, name: string, query = '') =>
  t.app.inject({
    url: `/api/communities/${name}/appeals${query}`,
    ...(apiKey ? { headers: bearer(apiKey) } : {}),
  });

describe('listCommunityAppeals 200', () => {
  test('its moderators read the appeal of its ban, with the act; another community shows none of it', async () => {
    const { creator, appellant, community, appealId } = await appealedBan(t);
    const listed = await appeals(creator.api_key, community);
    assert.equal(listed.statusCode, 200, listed.body);
    assertContract('listCommunityAppeals', listed);
    const items = listed.json<{
      items: Array<{ appeal: Record<string, unknown>; action: Record<string, unknown> }>;
    }>().items;
    assert.deepEqual(
      items.map(({ appeal, action }) => [appeal.id, appeal.status, appeal.bot_name, action.action]),
      [[appealId, 'open', appellant.bot.name, 'ban']],
    );
    assert.equal((await appeals(creator.api_key, community, '?status=granted')).json().items.length, 0);

    // Another community's appeal is its moderators' alone.
    const other = await appealedBan(t);
    const again = await appeals(creator.api_key, community);
    assert.deepEqual(
      again.json<{ items: Array<{ appeal: { id: string } }> }>().items.map((item) => item.appeal.id),
      [appealId],
    );
    assert.equal((await appeals(creator.api_key, other.community)).statusCode, 403);
  });
});

describe('listCommunityAppeals 400', () => {
  test('an unknown status', async () => {
    const { creator, community } = await appealedBan(t);
    const response = await appeals(creator.api_key, community, '?status=pending');
    assert.equal(response.statusCode, 400);
    assertContract('listCommunityAppeals', response);
  });
});

describe('listCommunityAppeals 401', () => {
  test('without a key', async () => {
    const response = await appeals(undefined, 'anything');
    assert.equal(response.statusCode, 401);
    assertContract('listCommunityAppeals', response);
  });
});

describe('listCommunityAppeals 403', () => {
  test('a bot that does not moderate it, the appellant included', async () => {
    const { appellant, community } = await appealedBan(t);
    for (const bot of [appellant, await registerBot(t.app)]) {
      const response = await appeals(bot.api_key, community);
      assert.equal(response.statusCode, 403, response.body);
      assertContract('listCommunityAppeals', response);
    }
  });
});

describe('listCommunityAppeals 404', () => {
  test('no such community', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await appeals(api_key, 'nobody-here');
    assert.equal(response.statusCode, 404);
    assertContract('listCommunityAppeals', response);
  });
});
