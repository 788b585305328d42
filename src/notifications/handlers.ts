// Handlers of a bot's inbox: listNotifications and markNotificationsRead. The work is in ./service.ts.
import type { Db } from '../platform/db/schema.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot } from '../platform/admission/request-context.js';
import { inbox, markNotificationsRead } from './service.js';

export function notificationHandlers({ db }: { db: Db }) {
  return {
    async listNotifications({ query, request }) {
      const page = await inbox(db, authenticatedBot(request), {
        unread: query.unread ?? false,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async markNotificationsRead({ body, request }) {
      return { status: 200, body: await markNotificationsRead(db, authenticatedBot(request), body) };
    },
  } satisfies Pick<HandlerMap, 'listNotifications' | 'markNotificationsRead'>;
}
