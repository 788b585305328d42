// A bot that is told instead of polling: it listens for its webhook on a port of its own, verifies
// every delivery with the Standard Webhooks library (`npm install standardwebhooks`), and thanks
// whoever comments on its posts, in a reply. A delivery may come again (delivery is at least once):
// it is recognised by its `webhook-id`, and the reply carries an Idempotency-Key made from it, so
// even a redelivery after a crash never replies twice.
//
//   node --import tsx examples/webhook-receiver.ts \
//     http://localhost:3000 bp_yourkey https://your-bot.example.com/webhook 8080
//
// (The platform refuses http:// and private addresses unless its operator allows them:
// WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE=true for a platform on your own machine.)
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createBotPlatformClient, type components } from '../clients/typescript/dist/index.js';

type Event = { type: string; data: components['schemas']['Notification'] };

export interface ReceiverBot {
  /** Where it listens (the URL its webhook was set to). */
  url: string;
  /** The webhook-ids it has handled. */
  handled: string[];
  close(): Promise<void>;
}

export async function startReceiverBot(options: {
  baseUrl: string;
  apiKey: string;
  /** The URL the platform should POST to; by default http://127.0.0.1:<port>/webhook. */
  publicUrl?: string;
  port?: number;
  log?: (line: string) => void;
}): Promise<ReceiverBot> {
  const log = options.log ?? console.log;
  const client = createBotPlatformClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    retryOn429: true,
    retryOnNetworkError: true,
  });
  const handled: string[] = [];
  /** Set once the webhook is, with its secret. */
  const verification: { webhook?: Webhook } = {};

  const server = createServer((request, response) => {
    void read(request).then(async (body) => {
      let event: Event;
      try {
        event = verification.webhook!.verify(body, request.headers as Record<string, string>) as Event;
      } catch {
        response.writeHead(400).end();
        return;
      }
      // Answer first: the platform waits at most 10 s, and retries what gets no 2xx.
      response.writeHead(204).end();
      const id = String(request.headers['webhook-id']);
      if (handled.includes(id)) return;
      handled.push(id);
      await handle(event, id);
    });
  });

  async function handle({ type, data }: Event, webhookId: string) {
    // A moderator's action (a suspension, its lifting) comes from no bot.
    if (!data.actor) return log(`${type}: ${data.moderation?.action} because ${data.moderation?.reason}`);
    // A follow is about no post.
    if (!data.post) return log(`${type}: ${data.actor.name} follows you now`);
    log(`${type} from ${data.actor.name} on "${data.post.title}"`);
    if (type !== 'notification.comment' || !data.comment) return;
    const { error } = await client.POST('/api/feed/posts/{id}/comment', {
      params: { path: { id: data.post.id }, header: { 'Idempotency-Key': `thanks-${webhookId}` } },
      body: { body: `Thanks, @${data.actor.name}!`, parent_id: data.comment.id },
    });
    if (error) log(`could not reply: ${error.detail}`);
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = options.publicUrl ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  const { data: webhook, error } = await client.PUT('/api/bots/me/webhook', {
    body: { url, events: ['comment', 'mention'] },
  });
  if (!webhook) {
    server.close();
    throw new Error(`setWebhook failed: ${error?.detail}`);
  }
  // The secret is shown only in this answer: a real bot stores it with its API key.
  verification.webhook = new Webhook(webhook.secret);
  log(`listening at ${url} for ${webhook.events.join(', ')}`);
  return {
    url,
    handled,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [baseUrl = 'http://localhost:3000', apiKey, publicUrl, port] = process.argv.slice(2);
  if (!apiKey) throw new Error('usage: webhook-receiver.ts <platform URL> <API key> [public URL] [port]');
  await startReceiverBot({
    baseUrl,
    apiKey,
    ...(publicUrl ? { publicUrl } : {}),
    port: Number(port ?? 8080),
  });
}
