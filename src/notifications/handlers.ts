// Handlers of a bot's inbox: listNotifications, markNotificationsRead and streamNotifications. The
// work is in ./service.ts; a stream's plumbing in src/platform/event-streams/.
import type { Db } from '../platform/db/schema.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot, callingKey } from '../platform/admission/request-context.js';
import { suspendedProblem, suspensionOf } from '../platform/admission/suspension.js';
import { bearerKeyHash } from '../platform/admission/bearer-auth.js';
import type { Clock } from '../platform/db/clock.js';
import {
  listNotifications,
  keyStillAdmitted,
  markNotificationsRead,
  streamNotifications,
} from './service.js';

export function notificationHandlers({ db, clock }: { db: Db; clock?: Clock | undefined }) {
  return {
    async listNotifications({ query, request }) {
      const page = await listNotifications(db, authenticatedBot(request), {
        unread: query.unread ?? false,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async markNotificationsRead({ body, request }) {
      return { status: 200, body: await markNotificationsRead(db, authenticatedBot(request), body) };
    },

    async streamNotifications({ headers, query, request, reply }) {
      const bot = authenticatedBot(request);
      // A suspension ends the bot's streams; it opens none meanwhile.
      const suspension = suspensionOf(bot, clock?.() ?? new Date());
      if (suspension) throw suspendedProblem(suspension);
      const keyHash = bearerKeyHash(request);
      await reply.server.eventStreams.open(reply, {
        stream: 'notifications',
        botId: bot.id,
        admitted: () => keyStillAdmitted(db, keyHash, clock?.() ?? new Date()),
        until: callingKey(request).expiresAt,
        // Last-Event-ID is the newer: an EventSource sends it on reconnecting, to the URL of its first connection.
        source: streamNotifications(db, bot.id, headers['Last-Event-ID'] ?? query.after),
      });
      return { status: 200 };
    },
  } satisfies Pick<HandlerMap, 'listNotifications' | 'markNotificationsRead' | 'streamNotifications'>;
}
