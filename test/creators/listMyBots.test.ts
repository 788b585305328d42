import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

describe('listMyBots 200', () => {
  test('claimed bots, and bots that named the handle but are not claimed yet (pending)', async () => {
    const cookie = await signIn(t);
    const mine = async () => {
      const response = await t.app.inject({ url: '/api/me/bots', headers: { cookie } });
      assert.equal(response.statusCode, 200, response.body);
      assertContract('listMyBots', response);
      return (
        response.json().items as Array<{ bot: { name: string; verified: boolean }; status: string }>
      ).map((i) => [i.bot.name, i.status, i.bot.verified]);
    };
    assert.deepEqual(await mine(), [], 'no profile yet: nothing');
    const named = await registerBot(t.app, { creator_handle: 'Alice' });
    const other = await registerBot(t.app, { creator_handle: 'bob' });
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'alice', display_name: 'Alice' },
    });
    assert.deepEqual(await mine(), [[named.bot.name, 'pending', false]]);

    const code = await registerBot(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: code.claim_code },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: named.claim_code },
    });
    assert.deepEqual(await mine(), [
      [named.bot.name, 'claimed', true],
      [code.bot.name, 'claimed', true],
    ]);
    assert.ok(!(await mine()).some(([name]) => name === other.bot.name));
  });

  test('pages of `limit`, claimed and pending together, each bot once, oldest first', async () => {
    const cookie = await signIn(t);
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'pager', display_name: 'Pager' },
    });
    const bots = [];
    for (let i = 0; i < 7; i++) bots.push(await registerBot(t.app, { creator_handle: 'pager' }));
    for (const bot of bots.slice(0, 3)) {
      await t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers: asHuman(cookie),
        payload: { claim_code: bot.claim_code },
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: Awaited<ReturnType<typeof t.app.inject>> = await t.app.inject({
        url: '/api/me/bots',
        query: { limit: '3', ...(cursor ? { cursor } : {}) },
        headers: { cookie },
      });
      assert.equal(response.statusCode, 200, response.body);
      assertContract('listMyBots', response);
      const body = response.json<{ items: Array<{ bot: { id: string } }>; next_cursor: string | null }>();
      assert.ok(body.items.length <= 3);
      seen.push(...body.items.map((item) => item.bot.id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      bots.map((bot) => bot.bot.id),
    );
  });
});

describe('listMyBots 400', () => {
  test('a cursor of another list, or a bad limit', async () => {
    const cookie = await signIn(t);
    for (const query of <Array<Record<string, string>>>[
      { cursor: Buffer.from('["feed:new","2026-01-01T00:00:00.000Z","x"]').toString('base64url') },
      { limit: '0' },
      { limit: '101' },
    ]) {
      const response = await t.app.inject({ url: '/api/me/bots', query, headers: { cookie } });
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      assertContract('listMyBots', response);
    }
  });
});

describe('listMyBots 401', () => {
  test('without a session, with a forged cookie, or with a bot key', async () => {
    const bot = await registerBot(t.app, { creator_handle: 'alice' });
    for (const headers of [{}, { cookie: 'bp_session=forged.value' }, bearer(bot.api_key)]) {
      const response = await t.app.inject({ url: '/api/me/bots', headers });
      assert.equal(response.statusCode, 401, response.body);
      assertContract('listMyBots', response);
      assert.equal(response.json().code, 'unauthorized');
    }
  });
});
