// receiveNotification, the spec's webhook: what a receiver gets, sent by the delivery worker to
// real receivers on 127.0.0.1 (the operator allows http and private addresses here, as for
// development): signed deliveries a real verifier accepts and the contract holds, retries with the
// same webhook-id, receivers that fail in every way, giving up, disabling, a restart, the address
// policy at delivery time. Times are short (WEBHOOK_* settings), the rules the same.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { WebhookSettings } from '../../src/config.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, inbox, setWebhook } from '../helpers/notifications.js';
import {
  answers,
  refusedIpv6,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const settings: WebhookSettings = {
  deliver: true,
  allowHttp: true,
  allowPrivate: true,
  // Long enough for an answer on a loaded machine: an attempt past it would be retried.
  timeoutMs: 1_000,
  retryScheduleMs: [50, 100],
  disableAfterMs: 3 * 24 * 3_600_000,
  pollMs: 20,
  concurrency: 4,
};
const t = useTestApp({ webhooks: settings });

let receiver: WebhookReceiver;
before(async () => {
  receiver = await startWebhookReceiver();
});
after(async () => {
  await receiver.close();
});
beforeEach(async () => {
  // Each test starts on a server with the file's settings (some tests restart it with others).
  await restartWith(settings);
});

/** A bot with a webhook to `url` (the receiver's by default), and another bot to notify it. */
async function subscribed(url = receiver.url, events?: string[]) {
  const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
  const { secret } = await setWebhook(t.app, ada.api_key, url, events);
  if (url === receiver.url) receiver.verifyWith(secret);
  const post = await createPost(t.app, ada.api_key);
  /** A comment on Ada's post by Grace: a `comment` notification for Ada. */
  const notify = (body = 'hello') => comment(t.app, grace.api_key, post.id, body);
  return { ada, grace, post, notify, secret };
}

async function deliveries(apiKey: string) {
  const response = await t.app.inject({ url: '/api/bots/me/webhook/deliveries', headers: bearer(apiKey) });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('listWebhookDeliveries', response);
  return response.json<{ items: Array<Record<string, unknown>> }>().items;
}

/** Waits until the bot's deliveries all satisfy `done` (a worker records them asynchronously). */
async function settled(apiKey: string, done: (item: Record<string, unknown>) => boolean, count = 1) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const items = await deliveries(apiKey);
    if (items.length >= count && items.every(done)) return items;
    assert.ok(Date.now() < deadline, `deliveries not settled: ${JSON.stringify(items)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const fromStart = () => receiver.received.length;

/** The server restarted (on the same database) with these settings: its deliveries stopped, then started again. */
async function restartWith(webhooks: WebhookSettings) {
  await t.app.close();
  t.app = await buildApp({ config: testConfig({ webhooks }), db: t.db });
  await t.app.ready();
}

describe('webhook deliveries', () => {
  test('a notification is POSTed signed, and the Standard Webhooks library verifies it: the inbox’s notification as data', async () => {
    receiver.answerWith(answers.ok);
    const start = fromStart();
    const { ada, notify } = await subscribed();
    const written = await notify('@someone hello');
    await receiver.until((received) => received.length > start);
    const [got] = receiver.received.slice(start);
    assert.ok(got && !('error' in got.verified), JSON.stringify(got?.verified));
    const [notification] = (await inbox(t.app, ada.api_key)).items;
    assert.deepEqual(got.verified, {
      type: 'notification.comment',
      timestamp: notification!.created_at,
      data: notification,
    });
    assert.equal(notification!.comment?.id, written.id);
    const [delivery] = await settled(ada.api_key, (item) => item.state === 'delivered');
    assert.equal(delivery!.id, got.id, 'webhook-id is the delivery’s id');
    assert.equal(delivery!.attempts, 1);
    assert.equal(delivery!.last_status_code, 204);
    assert.equal(delivery!.notification_id, notification!.id);
    assert.equal(delivery!.next_attempt_at, null);
  });

  test('only the kinds the webhook asked for are sent', async () => {
    receiver.answerWith(answers.ok);
    const { ada, notify } = await subscribed(receiver.url, ['mention']);
    await notify('no mention here');
    const other = await registerBot(t.app);
    const elsewhere = await createPost(t.app, other.api_key, { body: `@${ada.bot.name}` });
    assert.ok(elsewhere.id);
    const [delivery] = await settled(ada.api_key, (item) => item.state === 'delivered');
    assert.equal(delivery!.event_type, 'notification.mention');
    assert.equal((await deliveries(ada.api_key)).length, 1);
  });

  test('a 500, then a success: retried after its wait with the same webhook-id, delivered on the second attempt', async () => {
    let calls = 0;
    receiver.answerWith((request, response) =>
      (calls++ === 0 ? answers.status(500) : answers.ok)(request, response),
    );
    const start = fromStart();
    const { ada, notify } = await subscribed();
    await notify();
    const [delivery] = await settled(ada.api_key, (item) => item.state === 'delivered');
    const attempts = receiver.received.slice(start);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0]!.id, attempts[1]!.id);
    assert.ok(
      attempts.every((attempt) => !('error' in attempt.verified)),
      'each attempt is signed anew',
    );
    assert.ok(attempts[1]!.at - attempts[0]!.at >= 25, 'the retry waited (at least half its step)');
    assert.equal(delivery!.attempts, 2);
    const hook = await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(ada.api_key) });
    assert.equal(hook.json().failing_since, null, 'a success ends the failing streak');
  });

  test('a receiver that hangs, redirects or resets: each attempt fails (never marked delivered); the schedule spent, it is failed for good', async () => {
    // A short deadline: the hanging receiver's three attempts each wait it out.
    await restartWith({ ...settings, timeoutMs: 400 });
    for (const [what, answer, expected] of [
      ['hangs', answers.hang, { last_status_code: null, last_error: /timeout/ }],
      ['redirects', answers.redirect, { last_status_code: 302, last_error: /redirect, not followed/ }],
      ['resets', answers.reset, { last_status_code: null, last_error: /ECONNRESET|socket hang up/ }],
      ['answers 410', answers.status(410), { last_status_code: 410, last_error: null }],
    ] as const) {
      receiver.answerWith(answer);
      const start = fromStart();
      const { ada, notify } = await subscribed();
      await notify();
      const [delivery] = await settled(ada.api_key, (item) => item.state === 'failed');
      assert.equal(delivery!.attempts, 3, `${what}: the first attempt and two retries`);
      assert.equal(delivery!.last_status_code, expected.last_status_code, what);
      if (expected.last_error === null) assert.equal(delivery!.last_error, null);
      else assert.match(String(delivery!.last_error), expected.last_error, what);
      assert.equal(delivery!.delivered_at, null);
      assert.ok(
        receiver.received.slice(start).every((got) => got.id === delivery!.id),
        `${what}: no redirect followed`,
      );
      const hook = await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(ada.api_key) });
      assert.notEqual(hook.json().failing_since, null, `${what}: the webhook is failing`);
    }
  });

  test('a huge 2xx answer is read no further than 64 KiB and counts as delivered', async () => {
    receiver.answerWith(answers.huge);
    const { ada, notify } = await subscribed();
    await notify();
    const [delivery] = await settled(ada.api_key, (item) => item.state === 'delivered');
    assert.equal(delivery!.last_status_code, 200);
  });

  test('a delivery whose cause is deleted before it is sent is withdrawn: listed as failed, never sent', async () => {
    receiver.answerWith(answers.ok);
    const { ada, grace, post, notify } = await subscribed();
    // Written and deleted while no process delivers; then one does.
    await restartWith({ ...settings, deliver: false });
    const before = fromStart();
    const written = await comment(t.app, grace.api_key, post.id, 'gone before it is sent');
    assert.equal((await deliveries(ada.api_key)).length, 1, 'queued with its notification');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${post.id}/comments/${written.id}`,
      headers: bearer(grace.api_key),
    });
    assert.equal(removed.statusCode, 204);
    const [withdrawn] = await deliveries(ada.api_key);
    assert.equal(withdrawn!.state, 'failed');
    assert.equal(withdrawn!.attempts, 0);
    assert.equal(withdrawn!.next_attempt_at, null);
    assert.match(String(withdrawn!.last_error), /^withdrawn: its notification was deleted/);
    await restartWith(settings);
    // A later notification is sent; the withdrawn one never was, and is still listed.
    await notify('after it');
    await receiver.until((received) => received.length > before);
    assert.deepEqual(
      receiver.received.slice(before).map((got) => got.id),
      [(await deliveries(ada.api_key))[0]!.id],
    );
    assert.deepEqual(
      (await deliveries(ada.api_key)).map((item) => item.id).includes(withdrawn!.id as string),
      true,
    );
  });

  test('a delivered notification’s delivery stays listed when its post is deleted', async () => {
    receiver.answerWith(answers.ok);
    const { ada, post, notify } = await subscribed();
    await notify();
    const [delivered] = await settled(ada.api_key, (item) => item.state === 'delivered');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${post.id}`,
      headers: bearer(ada.api_key),
    });
    assert.equal(removed.statusCode, 204);
    assert.deepEqual((await inbox(t.app, ada.api_key)).items, [], 'the notification went with its post');
    assert.deepEqual(await deliveries(ada.api_key), [delivered]);
  });

  test('an address the policy refuses at delivery time (a name that resolves elsewhere now): nothing reaches it', async () => {
    receiver.answerWith(answers.ok);
    const { ada, notify } = await subscribed();
    await restartWith({ ...settings, allowPrivate: false });
    const start = fromStart();
    await notify();
    const [delivery] = await settled(ada.api_key, (item) => item.state === 'failed');
    assert.match(String(delivery!.last_error), /refused: 127\.0\.0\.1 is not a public address/);
    assert.equal(fromStart(), start);
  });
});

describe('one slow receiver holds up nobody else', () => {
  test('one attempt in flight per webhook across two instances; a healthy webhook’s deliveries go on while a hanging one has a backlog', async () => {
    const slow: WebhookSettings = { ...settings, timeoutMs: 2_000, retryScheduleMs: [60_000] };
    await restartWith(slow);
    const second = await buildApp({ config: testConfig({ webhooks: slow }), db: t.db });
    await second.ready();
    const hanging = await startWebhookReceiver();
    hanging.answerWith(answers.hang);
    try {
      receiver.answerWith(answers.ok);
      const stuck = await subscribed(hanging.url);
      const healthy = await subscribed();
      // A backlog of 16 on the hanging webhook, due before anything of the healthy one.
      for (let n = 0; n < 16; n++) await stuck.notify(`backlog ${n}`);
      await hanging.until((received) => received.length > 0);
      const start = fromStart();
      for (let n = 0; n < 3; n++) {
        await healthy.notify(`healthy ${n}`);
        await receiver.until((received) => received.length > start + n);
      }
      // Each arrived while the hanging webhook's first attempt was still waiting for its deadline:
      // none waited for a place that the backlog held.
      const firstCut = await firstClose(hanging);
      for (const got of receiver.received.slice(start))
        assert.ok(got.at < firstCut, 'delivered before the first hanging attempt ended');
      // The second attempt came only once the first was closed: never two open at once.
      await hanging.until((received) => received.length >= 2, slow.timeoutMs * 4);
      assert.equal(
        hanging.mostOpen,
        1,
        'never two attempts at once to one webhook, whichever instance made them',
      );
    } finally {
      await second.close();
      await hanging.close();
    }
  });
});

/** When the receiver's first request was closed (waiting for it if it is still open). */
async function firstClose(of: WebhookReceiver): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (of.closedAt.length === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(of.closedAt[0], 'the first request was never closed');
  return of.closedAt[0];
}

describe('webhook deliveries to IPv6 addresses that are not public', () => {
  test('each is refused at the attempt, before any connection: the delivery fails naming the address', async () => {
    receiver.answerWith(answers.ok);
    const bots = await Promise.all(refusedIpv6.map(() => subscribed()));
    await restartWith({ ...settings, allowPrivate: false, retryScheduleMs: [] });
    // Set while the policy allowed them (as an operator's earlier settings might have).
    for (const [n, address] of refusedIpv6.entries()) {
      const port = new URL(receiver.url).port;
      await t.db
        .updateTable('webhooks')
        .set({ url: `http://[${address}]:${port}/hooks` })
        .where('bot_id', '=', bots[n]!.ada.bot.id)
        .execute();
    }
    const start = fromStart();
    await Promise.all(bots.map(({ notify }) => notify()));
    for (const [n, address] of refusedIpv6.entries()) {
      const [delivery] = await settled(bots[n]!.ada.api_key, (item) => item.state === 'failed');
      const shown = new URL(`http://[${address}]/`).hostname.slice(1, -1);
      assert.equal(delivery!.last_error, `refused: ${shown} is not a public address`, address);
    }
    assert.equal(fromStart(), start);
  });
});

describe('webhook deliveries across a restart', () => {
  test('a server closing mid-attempt gives the delivery back; the next one sends it (same webhook-id)', async () => {
    receiver.answerWith(answers.hang);
    const start = fromStart();
    const { ada, notify } = await subscribed();
    await notify();
    await receiver.until((received) => received.length > start);
    receiver.answerWith(answers.ok);
    const closing = Date.now();
    await restartWith(settings);
    assert.ok(Date.now() - closing < settings.timeoutMs * 3, 'closing does not wait out a hanging receiver');
    const [delivery] = await settled(ada.api_key, (item) => item.state === 'delivered');
    assert.equal(delivery!.attempts, 1, 'the cut-short attempt is not counted');
    const ids = new Set(receiver.received.slice(start).map((got) => got.id));
    assert.deepEqual([...ids], [delivery!.id]);
  });
});

describe('webhook disabled after failing long enough', () => {
  test('its due deliveries fail with it; getWebhook says since when; setWebhook enables it again', async () => {
    await restartWith({ ...settings, retryScheduleMs: [50, 50, 50, 50], disableAfterMs: 60 });
    receiver.answerWith(answers.status(500));
    const { ada, notify } = await subscribed();
    await notify('one');
    await notify('two');
    await settled(ada.api_key, (item) => item.state === 'failed', 2);
    const hook = await t.app.inject({ url: '/api/bots/me/webhook', headers: bearer(ada.api_key) });
    assertContract('getWebhook', hook);
    assert.notEqual(hook.json().disabled_at, null);
    // Disabled: a new notification is not queued.
    await notify('three');
    assert.equal((await deliveries(ada.api_key)).length, 2);
    const again = await t.app.inject({
      method: 'PUT',
      url: '/api/bots/me/webhook',
      headers: bearer(ada.api_key),
      payload: { url: receiver.url },
    });
    assert.equal(again.json().disabled_at, null);
  });
});

describe('webhook metrics', () => {
  test('attempts by result; the outbox’s pending deliveries and how long the oldest due one has waited', async () => {
    const metric = async (series: string) => {
      const text = (await t.app.inject({ url: '/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    receiver.answerWith(answers.ok);
    const { ada, notify } = await subscribed();
    await restartWith({ ...settings, deliver: false });
    await notify('one');
    await notify('two');
    assert.equal(await metric('webhook_outbox_pending'), 2);
    const deadline = Date.now() + 5_000;
    while (!((await metric('webhook_outbox_oldest_due_seconds'))! > 0))
      assert.ok(Date.now() < deadline, 'the oldest due delivery is seen waiting');
    await restartWith(settings);
    await settled(ada.api_key, (item) => item.state === 'delivered', 2);
    assert.equal(await metric('webhook_attempts_total{result="delivered"}'), 2);
    assert.equal(await metric('webhook_outbox_pending'), 0);
    assert.equal(await metric('webhook_outbox_oldest_due_seconds'), 0);
  });
});
