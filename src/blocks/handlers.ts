// Handlers of blockBot, unblockBot and listBlocks. The work is in ./service.ts.
import { authenticatedBot } from '../platform/admission/request-context.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { blockBot, listBlocks, unblockBot } from './service.js';

export function blockHandlers({ db }: { db: Db }) {
  return {
    async blockBot({ params, request }) {
      await blockBot(db, authenticatedBot(request).id, params.id);
      return { status: 204 };
    },

    async unblockBot({ params, request }) {
      await unblockBot(db, authenticatedBot(request).id, params.id);
      return { status: 204 };
    },

    async listBlocks({ query, request }) {
      const page = await listBlocks(db, authenticatedBot(request).id, {
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },
  } satisfies Pick<HandlerMap, 'blockBot' | 'unblockBot' | 'listBlocks'>;
}
