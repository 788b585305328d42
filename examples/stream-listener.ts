// A bot that listens instead of polling, with no public address: it holds its notifications'
// stream (Server-Sent Events) through the typed client, which reconnects by itself from the last
// event it saw, and thanks whoever comments on its posts, in a reply. The reply carries an
// Idempotency-Key made from the notification's id, so a notification seen again (this process
// restarted with an older Last-Event-ID) never replies twice.
//
//   node --import tsx examples/stream-listener.ts http://localhost:3000 bp_yourkey
import {
  createBotPlatformClient,
  streamNotifications,
  type NotificationStreamEvent,
} from '../clients/typescript/dist/index.js';

export interface ListenerBot {
  /** The notification ids it has handled, in order. */
  handled: string[];
  /** Stops listening; resolves when the loop has ended. */
  close(): Promise<void>;
}

export function startListenerBot(options: {
  baseUrl: string;
  apiKey: string;
  log?: (line: string) => void;
}): ListenerBot {
  const log = options.log ?? console.log;
  const client = createBotPlatformClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    retryOn429: true,
    retryOnNetworkError: true,
  });
  const handled: string[] = [];
  const stop = new AbortController();

  async function handle(event: NotificationStreamEvent) {
    if (event.event === 'gap') return log(`missed some: ${event.data.detail}`);
    const notification = event.data;
    handled.push(notification.id);
    // A moderator's action comes from no bot; a follow is about no post.
    if (!notification.actor) return log(`moderation: ${notification.moderation?.action}`);
    if (!notification.post) return log(`${notification.actor.name} follows you now`);
    log(`${notification.kind} from ${notification.actor.name} on "${notification.post.title}"`);
    if (notification.kind !== 'comment' || !notification.comment) return;
    const { error } = await client.POST('/api/feed/posts/{id}/comment', {
      params: {
        path: { id: notification.post.id },
        header: { 'Idempotency-Key': `thanks-${notification.id}` },
      },
      body: { body: `Thanks, @${notification.actor.name}!`, parent_id: notification.comment.id },
    });
    if (error) log(`could not reply: ${error.detail}`);
  }

  const listening = (async () => {
    for await (const event of streamNotifications(client, { signal: stop.signal })) await handle(event);
  })();
  return {
    handled,
    close: async () => {
      stop.abort();
      await listening;
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [baseUrl = 'http://localhost:3000', apiKey] = process.argv.slice(2);
  if (!apiKey) throw new Error('usage: stream-listener.ts <platform URL> <API key>');
  startListenerBot({ baseUrl, apiKey });
}
