// Webhook delivery by two server processes sharing one Postgres database, one of them killed with
// SIGKILL mid-delivery: 200 notifications to four webhooks of one receiver, every one delivered at
// least once (the dead process's leased deliveries picked up by the other once their leases run
// out), none sent twice at once, each signature verified by the Standard Webhooks library.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
import { serverProcess, type StartedServer } from '../helpers/npm-start.js';
import { answers, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const skip = !serverUrl && 'needs a database two processes share; runs in the Postgres pass';

const notifications = 200;
let database: TestDatabase;
let receiver: WebhookReceiver;
const servers: StartedServer[] = [];

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  receiver = await startWebhookReceiver();
  for (let i = 0; i < 2; i++) {
    servers.push(
      await serverProcess({
        DATABASE_URL: database.url!,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1,1,1,1',
        RATE_LIMIT_COMMENTS: '1000',
        // One bot answers another's post 200 times: the loop breaker would pause them at 10.
        CONVERSATION_LIMIT: '1000',
        IP_LIMIT_FACTOR: '100',
      }),
    );
  }
});
after(async () => {
  if (skip) return;
  for (const server of servers) await server.stop().catch(() => {});
  await receiver?.close();
  await database?.close();
});

async function call(
  server: StartedServer,
  path: string,
  init: { method?: string; key?: string; body?: unknown; idempotencyKey?: string } = {},
) {
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.idempotencyKey ? { 'idempotency-key': init.idempotencyKey } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: () => JSON.parse(text) as Record<string, unknown>, text };
}

/**
 * What the typed client does for a request whose answer was lost: send it again under its
 * Idempotency-Key, and again while the first attempt is still being written (the dead process's
 * statement runs to its commit in Postgres, so the retry can race it: 409 `idempotency_key_in_use`,
 * "retry to get its answer").
 */
async function resend(server: StartedServer, path: string, init: Parameters<typeof call>[2]) {
  for (let attempt = 1; ; attempt++) {
    const response = await call(server, path, init);
    const inUse = response.status === 409 && response.json().code === 'idempotency_key_in_use';
    if (!inUse || attempt === 10) return response;
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
  }
}

describe('webhook delivery by two processes, one killed mid-delivery', { skip }, () => {
  test(`${notifications} notifications: every one delivered, none twice at once, all verified`, async () => {
    const [a, b] = servers as [StartedServer, StartedServer];
    const register = async (name: string) => {
      const response = await call(a, '/api/bots/register', { body: { name, model: 'gpt-5' } });
      assert.equal(response.status, 201, response.text);
      return response.json().api_key as string;
    };
    // Four webhooks, so that each process has attempts in flight (a webhook has one at a time).
    const posts: string[] = [];
    for (let n = 0; n < 4; n++) {
      const recipient = await register(`listener-${n}`);
      const url = `${receiver.url}?to=${n}`;
      const set = await call(a, '/api/bots/me/webhook', { method: 'PUT', key: recipient, body: { url } });
      assert.equal(set.status, 200, set.text);
      receiver.verifyWith(set.json().secret as string, new URL(url).pathname + new URL(url).search);
      const post = await call(a, '/api/feed/posts', {
        key: recipient,
        body: { category: 'results', title: 'Tell me', body: 'Comment away.' },
      });
      posts.push(post.json().id as string);
    }
    // Slow enough that deliveries are in flight when a process dies.
    receiver.answerWith(answers.slowly(100));

    const writers = await Promise.all([1, 2, 3, 4].map((i) => register(`writer-${i}`)));
    let killed = false;
    await Promise.all(
      writers.map(async (key, w) => {
        for (let i = 0; i < notifications / writers.length; i++) {
          const server = killed ? a : servers[(w + i) % 2]!;
          const comment = { key, body: { body: `#${i}` }, idempotencyKey: `writer-${w}-${i}` };
          const path = `/api/feed/posts/${posts[(w + i) % posts.length]}/comment`;
          // A comment sent to the process as it dies is sent again to the other, under its
          // Idempotency-Key: written once, whether or not the first got through.
          const response = await call(server, path, comment).catch(() => resend(a, path, comment));
          assert.equal(response.status, 201, response.text);
          if (!killed && receiver.received.length >= 40) {
            killed = true;
            await b.kill();
          }
        }
      }),
    );
    if (!killed) {
      await receiver.until((received) => received.length >= 40, 30_000);
      killed = true;
      await b.kill();
    }

    const ids = async () =>
      await database.db.selectFrom('webhook_deliveries').select(['id', 'state']).execute();
    const comments = await database.db.selectFrom('comments').select(['id', 'body', 'bot_id']).execute();
    assert.equal(comments.length, notifications, 'each comment written once');
    assert.equal((await ids()).length, notifications, 'one delivery per notification');
    await receiver.until((received) => new Set(received.map((got) => got.id)).size === notifications, 60_000);
    const delivered = new Set(receiver.received.map((got) => got.id));
    assert.deepEqual([...delivered].sort(), (await ids()).map((row) => row.id).sort());
    assert.deepEqual(receiver.overlapping, [], 'no delivery was sent twice at once');
    for (const got of receiver.received) {
      assert.ok(!('error' in got.verified), `${got.id}: ${JSON.stringify(got.verified)}`);
      assert.equal(got.verified.type, 'notification.comment');
    }
    // The one left records every delivery it made as delivered.
    const deadline = Date.now() + 15_000;
    while ((await ids()).some((row) => row.state !== 'delivered')) {
      assert.ok(Date.now() < deadline, 'every delivery recorded as delivered');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(`${receiver.received.length} requests for ${notifications} deliveries`);
  });
});
