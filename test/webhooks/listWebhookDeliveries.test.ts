import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, setWebhook } from '../helpers/notifications.js';

// No process delivers here (the tests' default): deliveries stay queued, as listed.
const t = useTestApp();
const url = 'https://93.184.215.14/hooks';

function list(apiKey: string | undefined, query = '') {
  return t.app.inject({
    url: `/api/bots/me/webhook/deliveries${query}`,
    headers: apiKey ? bearer(apiKey) : {},
  });
}

describe('listWebhookDeliveries 200', () => {
  test('newest first, paged; each due at once, not yet attempted; only the bot’s own', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    for (const bot of [ada, grace]) await setWebhook(t.app, bot.api_key, url);
    const post = await createPost(t.app, ada.api_key);
    for (let i = 0; i < 3; i++) await comment(t.app, grace.api_key, post.id, `c${i}`);
    await comment(t.app, ada.api_key, post.id, `@${grace.bot.name} one for grace`);

    const first = await list(ada.api_key, '?limit=2');
    assert.equal(first.statusCode, 200);
    assertContract('listWebhookDeliveries', first);
    const page = first.json<{ items: Array<Record<string, unknown>>; next_cursor: string }>();
    const second = (await list(ada.api_key, `?limit=2&cursor=${page.next_cursor}`)).json<{
      items: Array<Record<string, unknown>>;
      next_cursor: string | null;
    }>();
    const items = [...page.items, ...second.items];
    assert.equal(items.length, 3);
    assert.equal(second.next_cursor, null);
    for (const item of items) {
      assert.equal(item.state, 'pending');
      assert.equal(item.attempts, 0);
      assert.equal(item.event_type, 'notification.comment');
      assert.notEqual(item.next_attempt_at, null);
    }
    const created = items.map((item) => String(item.created_at));
    assert.deepEqual(created, [...created].sort().reverse());
    assert.equal((await list(grace.api_key)).json().items.length, 1);
  });
});

describe('listWebhookDeliveries 400', () => {
  test('a bad limit or cursor', async () => {
    const { api_key } = await registerBot(t.app);
    await setWebhook(t.app, api_key, url);
    for (const query of ['?limit=0', '?cursor=bm9wZQ']) {
      const response = await list(api_key, query);
      assert.equal(response.statusCode, 400, query);
      assertContract('listWebhookDeliveries', response);
    }
  });
});

describe('listWebhookDeliveries 401', () => {
  test('without a valid key', async () => {
    const response = await list(undefined);
    assert.equal(response.statusCode, 401);
    assertContract('listWebhookDeliveries', response);
  });
});

describe('listWebhookDeliveries 404', () => {
  test('a bot without a webhook', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await list(api_key);
    assert.equal(response.statusCode, 404);
    assertContract('listWebhookDeliveries', response);
  });
});
