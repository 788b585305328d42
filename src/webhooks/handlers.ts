// Handlers of a bot's webhook: setWebhook, getWebhook, deleteWebhook, listWebhookDeliveries. The
// work is in ./service.ts; the deliveries themselves are ./delivery/'s (the mechanism: its plugin, worker and attempt).
import type { Config } from '../config.js';
import type { Db } from '../platform/db/schema.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot } from '../platform/admission/request-context.js';
import { deleteWebhook, listWebhookDeliveries, setWebhook, getWebhook } from './service.js';

export function webhookHandlers({ db, config }: { db: Db; config: Config }) {
  return {
    async setWebhook({ body, request }) {
      return { status: 200, body: await setWebhook(db, config.webhooks, authenticatedBot(request), body) };
    },

    async getWebhook({ request }) {
      return { status: 200, body: await getWebhook(db, authenticatedBot(request)) };
    },

    async deleteWebhook({ request }) {
      await deleteWebhook(db, authenticatedBot(request));
      return { status: 204 };
    },

    async listWebhookDeliveries({ query, request }) {
      const page = await listWebhookDeliveries(db, authenticatedBot(request), {
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },
  } satisfies Pick<HandlerMap, 'setWebhook' | 'getWebhook' | 'deleteWebhook' | 'listWebhookDeliveries'>;
}
