// Fair delivery: one webhook's backlog never delays another webhook's first attempt. Sixteen
// receivers that never answer, each with a backlog and retries coming back, against the default
// WEBHOOK_CONCURRENCY (8) and poll: a healthy receiver's delivery still starts within a second of
// being due, every time. (Before the lanes, the hanging webhooks' older deliveries took every
// place first, for a whole attempt deadline each.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { WebhookSettings } from '../../src/config.js';
import { slowAttemptMs } from '../../src/webhooks/delivery/worker.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { createPost, registerBot } from '../helpers/bots.js';
import { comment, setWebhook } from '../helpers/notifications.js';
import { eventually } from '../helpers/streams.js';
import { answers, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const defaults = testConfig().webhooks;
const settings: WebhookSettings = {
  ...defaults,
  deliver: true,
  allowHttp: true,
  allowPrivate: true,
  // Short, so that the hanging receivers fail and come back within the test: the rule is the same.
  timeoutMs: 3_000,
  retryScheduleMs: Array<number>(9).fill(100),
};
const t = useTestApp({ webhooks: settings });

const hangingReceivers = 16;
const backlog = 3;
let hanging: WebhookReceiver;
let healthy: WebhookReceiver;
before(async () => {
  [hanging, healthy] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  hanging.answerWith(answers.hang);
});
after(async () => {
  await Promise.all([hanging.close(), healthy.close()]);
});

/** A bot with a webhook to `url` and a post, and a function that makes one notification for it. */
async function subscribed(url: string, commenter: { api_key: string }) {
  const bot = await registerBot(t.app);
  const { secret } = await setWebhook(t.app, bot.api_key, url);
  const post = await createPost(t.app, bot.api_key);
  return { secret, notify: (body: string) => comment(t.app, commenter.api_key, post.id, body) };
}

describe('fair delivery', () => {
  test(`${hangingReceivers} receivers that hang, with backlogs: a healthy one’s deliveries start within a second, every time`, async () => {
    assert.equal(settings.concurrency, 8, 'the default concurrency, fewer places than hanging receivers');
    const commenter = await registerBot(t.app);
    for (let i = 0; i < hangingReceivers; i++) {
      const stuck = await subscribed(`${hanging.url}?receiver=${i}`, commenter);
      for (let n = 0; n < backlog; n++) await stuck.notify(`backlog ${i}.${n}`);
    }
    // Every hanging receiver has held an attempt to its deadline at least once.
    await eventually(
      () => hanging.closedAt.length >= hangingReceivers,
      30_000,
      'every hanging attempt to time out',
    );
    const pending = async () =>
      (
        await sql<{ n: number }>`
          select count(*)::int as n from webhook_deliveries
          where state = 'pending' and next_attempt_at <= now() + interval '1 second'`.execute(t.db)
      ).rows[0]!.n;
    assert.ok(
      (await pending()) > settings.concurrency,
      'the hanging webhooks have more due than there are places',
    );

    const { secret, notify } = await subscribed(healthy.url, commenter);
    healthy.verifyWith(secret);
    for (let n = 0; n < 3; n++) {
      const due = Date.now();
      await notify(`healthy ${n}`);
      await healthy.until((received) => received.length > n, 10_000);
      const waited = healthy.received[n]!.at - due;
      assert.ok(waited < 1_000, `delivery ${n} started ${waited} ms after it was due`);
      // Meanwhile the hanging receivers are still being tried: their backlogs wait in their own lane.
      assert.ok((await pending()) > 0);
    }
    assert.ok(!('error' in healthy.received[0]!.verified), 'a real, signed delivery');
    assert.ok(slowAttemptMs <= 1_000);
  });
});
