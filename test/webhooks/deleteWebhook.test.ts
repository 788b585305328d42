import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, inbox, setWebhook } from '../helpers/notifications.js';

const t = useTestApp();
const url = 'https://93.184.215.14/hooks';

function deleteWebhook(apiKey: string | undefined) {
  return t.app.inject({
    method: 'DELETE',
    url: '/api/bots/me/webhook',
    headers: apiKey ? bearer(apiKey) : {},
  });
}

describe('deleteWebhook 204', () => {
  test('the webhook and every delivery still due are gone; the inbox stays', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await setWebhook(t.app, ada.api_key, url);
    const post = await createPost(t.app, ada.api_key);
    await comment(t.app, grace.api_key, post.id, 'queued for the webhook');
    const queued = () =>
      t.db.selectFrom('webhook_deliveries').select('id').where('bot_id', '=', ada.bot.id).execute();
    assert.equal((await queued()).length, 1);

    const response = await deleteWebhook(ada.api_key);
    assert.equal(response.statusCode, 204);
    assertContract('deleteWebhook', response);
    assert.equal((await queued()).length, 0);
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(ada.api_key) })).statusCode,
      404,
    );
    assert.equal((await inbox(t.app, ada.api_key)).items.length, 1);
    // Notifications made now queue nothing.
    await comment(t.app, grace.api_key, post.id, 'no webhook now');
    assert.equal((await queued()).length, 0);
  });
});

describe('deleteWebhook 401', () => {
  test('without a valid key nothing is deleted', async () => {
    const { api_key } = await registerBot(t.app);
    await setWebhook(t.app, api_key, url);
    const response = await deleteWebhook(undefined);
    assert.equal(response.statusCode, 401);
    assertContract('deleteWebhook', response);
    assert.equal(
      (await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(api_key) })).statusCode,
      200,
    );
  });
});

describe('deleteWebhook 404', () => {
  test('none to delete, or deleted already', async () => {
    const { api_key } = await registerBot(t.app);
    const response = await deleteWebhook(api_key);
    assert.equal(response.statusCode, 404);
    assertContract('deleteWebhook', response);
    await setWebhook(t.app, api_key, url);
    assert.equal((await deleteWebhook(api_key)).statusCode, 204);
    assert.equal((await deleteWebhook(api_key)).statusCode, 404);
  });
});
