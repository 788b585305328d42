import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, claimNewBot, ourOrigin, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp();

function setMode(cookie: string, reference: string, payload: unknown, headers = asHuman(cookie)) {
  return t.app.inject({
    method: 'PATCH',
    url: `/api/me/bots/${reference}`,
    headers,
    payload: payload as object,
  });
}

const modeOf = async (apiKey: string) =>
  (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).json().mode;

describe('updateClaimedBot 200', () => {
  test('a creator sets a claimed bot read only, by name; the bot sees it in getOwnBot, then open again', async () => {
    const cookie = await signInAsCreator(t, 'moder');
    const { bot, api_key } = await claimNewBot(t, cookie);
    assert.equal(await modeOf(api_key), 'open');
    const response = await setMode(cookie, bot.name.toUpperCase(), { mode: 'read_only' });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('updateClaimedBot', response);
    assert.deepEqual(
      { id: response.json().bot.id, status: response.json().status, mode: response.json().mode },
      { id: bot.id, status: 'claimed', mode: 'read_only' },
    );
    assert.equal(await modeOf(api_key), 'read_only');
    const mine = await t.app.inject({ url: '/api/me/bots', headers: { cookie } });
    assert.equal(mine.json().items[0].mode, 'read_only');
    assert.equal((await setMode(cookie, bot.id, { mode: 'open' })).statusCode, 200);
    assert.equal(await modeOf(api_key), 'open');
  });
});

describe('updateClaimedBot 400', () => {
  test('a mode that is none, or another field: refused in words, the mode unchanged', async () => {
    const cookie = await signInAsCreator(t, 'badmode');
    const { bot, api_key } = await claimNewBot(t, cookie);
    for (const payload of [{ mode: 'review-everything' }, {}, { mode: 'open', name: 'x' }]) {
      const response = await setMode(cookie, bot.id, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('updateClaimedBot', response);
    }
    assert.equal(await modeOf(api_key), 'open');
  });
});

describe('updateClaimedBot 401', () => {
  test('without a session', async () => {
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/bots/anyone',
      headers: { origin: ourOrigin },
      payload: { mode: 'read_only' },
    });
    assert.equal(response.statusCode, 401, response.body);
    assertContract('updateClaimedBot', response);
  });
});

describe('updateClaimedBot 403', () => {
  test('from another site: refused, the mode unchanged', async () => {
    const cookie = await signInAsCreator(t, 'crossmode');
    const { bot, api_key } = await claimNewBot(t, cookie);
    const response = await setMode(
      cookie,
      bot.id,
      { mode: 'read_only' },
      {
        cookie,
        origin: 'https://evil.example',
      },
    );
    assert.equal(response.statusCode, 403, response.body);
    assertContract('updateClaimedBot', response);
    assert.equal(await modeOf(api_key), 'open');
  });
});

describe('updateClaimedBot 404', () => {
  test("another creator's bot is as unknown as none", async () => {
    const owner = await signInAsCreator(t, 'modeowner');
    const stranger = await signInAsCreator(t, 'modestranger');
    const { bot, api_key } = await claimNewBot(t, owner);
    for (const reference of [bot.id, 'no-such-bot']) {
      const response = await setMode(stranger, reference, { mode: 'read_only' });
      assert.equal(response.statusCode, 404, response.body);
      assertContract('updateClaimedBot', response);
    }
    assert.equal(await modeOf(api_key), 'open');
  });
});

describe('/me mode', () => {
  test("the page's form sets the mode, and shows it", async () => {
    const cookie = await signInAsCreator(t, 'pagemode');
    const { bot, api_key } = await claimNewBot(t, cookie);
    const saved = await t.app.inject({
      method: 'POST',
      url: `/me/bots/${bot.id}/mode`,
      headers: { cookie, origin: ourOrigin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'mode=read_only',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, '/me?done=mode');
    assert.equal(await modeOf(api_key), 'read_only');
    const page = await t.app.inject({ url: '/me?done=mode', headers: { cookie, accept: 'text/html' } });
    assert.match(page.body, /The bot’s mode is saved/);
    assert.match(
      page.body,
      new RegExp(`id="mode-${bot.id}-read_only" name="mode" value="read_only" checked`),
    );
  });
});
