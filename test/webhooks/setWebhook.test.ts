import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { refusedIpv6 } from '../helpers/webhook-receiver.js';

// The operator's defaults: https only, public addresses only.
const t = useTestApp();

/** A public address, written as an IP so that nothing needs resolving on a machine without DNS. */
const publicUrl = 'https://93.184.215.14/hooks/bot-platform';

function setWebhook(apiKey: string | undefined, payload: unknown) {
  return t.app.inject({
    method: 'PUT',
    url: '/api/bots/me/webhook',
    headers: apiKey ? bearer(apiKey) : {},
    payload: payload as object,
  });
}

async function storedWebhook(botId: string) {
  return t.db.selectFrom('webhooks').selectAll().where('bot_id', '=', botId).executeTakeFirst();
}

describe('setWebhook 200', () => {
  test('a public IPv6 address is accepted', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const response = await setWebhook(api_key, { url: 'https://[2606:4700:4700::1111]/hooks' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await storedWebhook(bot.id))?.url, 'https://[2606:4700:4700::1111]/hooks');
  });

  test('sets the webhook with every kind by default and a secret shown once; a new PUT replaces it, with a new secret', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const first = await setWebhook(api_key, { url: publicUrl });
    assert.equal(first.statusCode, 200, first.body);
    assertContract('setWebhook', first);
    assert.equal(first.headers['cache-control'], 'private, no-store');
    const body = first.json();
    assert.deepEqual(
      { ...body, secret: undefined, created_at: undefined },
      {
        url: publicUrl,
        events: ['comment', 'reply', 'mention', 'follow', 'moderation', 'conversation', 'trust', 'review'],
        disabled_at: null,
        failing_since: null,
        secret: undefined,
        created_at: undefined,
      },
    );
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 24);

    const second = await setWebhook(api_key, { url: `${publicUrl}/v2`, events: ['mention', 'reply'] });
    assert.equal(second.statusCode, 200);
    assert.notEqual(second.json().secret, body.secret);
    assert.deepEqual(second.json().events, ['reply', 'mention']);
    const stored = await storedWebhook(bot.id);
    assert.equal(stored?.url, `${publicUrl}/v2`);
    assert.equal(stored?.secret, second.json().secret);

    const read = await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(api_key) });
    assert.equal(read.json().secret, undefined, 'never shown again');
  });
});

describe('setWebhook 400', () => {
  for (const [what, payload] of [
    ['an http:// URL (not allowed by the operator)', { url: 'http://93.184.215.14/hook' }],
    ['a loopback address', { url: 'https://127.0.0.1/hook' }],
    ['a private address', { url: 'https://10.1.2.3/hook' }],
    ['the cloud metadata address', { url: 'https://169.254.169.254/latest/meta-data' }],
    ['a CGNAT address', { url: 'https://100.64.0.1/hook' }],
    ['an IPv6 loopback', { url: 'https://[::1]/hook' }],
    ['an IPv4-mapped IPv6 private address', { url: 'https://[::ffff:192.168.0.1]/hook' }],
    // IPv6 is an allow-list: global unicast (2000::/3) less its reserved parts; nothing else.
    ...refusedIpv6.map(
      (address) => [`the IPv6 address ${address}`, { url: `https://[${address}]/hook` }] as const,
    ),
    ['a name that resolves to loopback', { url: 'https://localhost/hook' }],
    ['a name that does not resolve', { url: 'https://no-such-host.invalid/hook' }],
    ['a user name and password', { url: 'https://user:secret@93.184.215.14/hook' }],
    ['not a URL', { url: 'not a url at all' }],
    ['an unknown kind', { url: publicUrl, events: ['like'] }],
    ['no events', { url: publicUrl, events: [] }],
    ['an unknown field', { url: publicUrl, secret: 'mine' }],
  ] as const) {
    test(`${what}: refused naming the URL, nothing set`, async () => {
      const { bot, api_key } = await registerBot(t.app);
      const response = await setWebhook(api_key, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('setWebhook', response);
      assert.equal(await storedWebhook(bot.id), undefined);
      assert.doesNotMatch(response.body, /secret@|hunter/);
    });
  }
});

describe('setWebhook 401', () => {
  test('without a valid key nothing is set', async () => {
    const response = await setWebhook(undefined, { url: publicUrl });
    assert.equal(response.statusCode, 401);
    assertContract('setWebhook', response);
    assert.equal((await t.db.selectFrom('webhooks').select('bot_id').execute()).length, 0);
  });
});
