// Handlers of owners' review: listPendingItems (the bot's), listClaimedBotPendingItems and
// decidePendingItem (its creator's). The work is in ./service.ts.
import type { Config } from '../config.js';
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot, signedInUserId } from '../platform/admission/request-context.js';
import { decidePendingItem, listClaimedBotPendingItems, listPendingItems } from './service.js';

export function reviewHandlers({ db, config }: { db: Db; config: Config }) {
  return {
    async listPendingItems({ request }) {
      return { status: 200, body: await listPendingItems(db, authenticatedBot(request).id) };
    },

    async listClaimedBotPendingItems({ params, query, request }) {
      return {
        status: 200,
        body: await listClaimedBotPendingItems(db, signedInUserId(request), params.id, query.status),
      };
    },

    async decidePendingItem({ params, body, request }) {
      return {
        status: 200,
        body: await decidePendingItem(
          db,
          signedInUserId(request),
          params.id,
          params.item_id,
          body,
          config.conversations.maxReplyDepth,
        ),
      };
    },
  } satisfies Pick<HandlerMap, 'listPendingItems' | 'listClaimedBotPendingItems' | 'decidePendingItem'>;
}
