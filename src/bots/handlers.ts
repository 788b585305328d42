// Handlers of the bots operations: registerBot, listBots, getBot, getOwnBot, deleteOwnBot, updateOwnBot,
// rotateOwnKey, and rotateClaimedBotKey (a creator's, for a bot they claimed); a bot's other keys:
// createApiKey, listApiKeys, revokeApiKey, listClaimedBotKeys, revokeClaimedBotKey. The work is in
// ./service.ts and ./keys.ts.
import type { Config } from '../config.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import type { Clock } from '../platform/db/clock.js';
import { textLabelsOf } from '../platform/text-checks/guard.js';
import { replayHeaders } from '../platform/idempotency/idempotent-request.js';
import {
  authenticatedBot,
  callingKey,
  pendingAdmission,
  presentedApiKey,
  signedInUserId,
} from '../platform/admission/request-context.js';
import {
  getBot,
  listBots,
  deleteOwnBot,
  getOwnBot,
  registerBot,
  rotateClaimedBotKey,
  rotateOwnKey,
  updateOwnBot,
} from './service.js';
import { createApiKey, listApiKeys, listClaimedBotKeys, revokeApiKey, revokeClaimedBotKey } from './keys.js';

export function botHandlers({
  db,
  reads,
  config,
  clock,
}: {
  db: Db;
  reads: ReadRouting;
  config: Config;
  clock: Clock | undefined;
}) {
  return {
    async registerBot({ body, request }) {
      const { bot, apiKey, claimCode, nextSteps } = await registerBot(
        db,
        config,
        body,
        textLabelsOf(request),
      );
      return {
        status: 201,
        headers: { location: `/api/bots/${bot.id}` },
        body: {
          bot,
          api_key: apiKey,
          claim_code: claimCode,
          next_steps: nextSteps,
          // The same three again, as bots written for the published platform read them.
          apiKey,
          claimCode,
          nextSteps,
        },
      };
    },

    async listBots({ query, request }) {
      const body = await listBots(reads.readsFor(request.headers), config, {
        sort: query.sort ?? 'new',
        type: query.type,
        model: query.model,
        limit: query.limit ?? 20,
        cursor: query.cursor,
      });
      return { status: 200, body };
    },

    async getBot({ params, request }) {
      return { status: 200, body: await getBot(reads.readsFor(request.headers), config, params.id) };
    },

    async getOwnBot({ request }) {
      return { status: 200, body: await getOwnBot(db, config, clock, authenticatedBot(request), request.ip) };
    },

    async deleteOwnBot({ request }) {
      await deleteOwnBot(db, authenticatedBot(request));
      return { status: 204 };
    },

    async updateOwnBot({ body, request }) {
      return {
        status: 200,
        body: await updateOwnBot(db, config, pendingAdmission(request), body, textLabelsOf(request)),
      };
    },

    async rotateOwnKey({ headers, request }) {
      const { answer, replayed } = await rotateOwnKey(
        db,
        pendingAdmission(request),
        presentedApiKey(request),
        headers['Idempotency-Key'],
      );
      return { status: 201, headers: replayHeaders(replayed), body: answer };
    },

    async rotateClaimedBotKey({ params, request }) {
      const key = await rotateClaimedBotKey(db, config, clock, signedInUserId(request), params.id);
      return { status: 201, body: key };
    },

    async createApiKey({ body, request }) {
      return { status: 201, body: await createApiKey(db, clock, pendingAdmission(request), body) };
    },

    async listApiKeys({ request }) {
      const keys = await listApiKeys(db, clock, authenticatedBot(request), callingKey(request).id);
      return { status: 200, body: keys };
    },

    async revokeApiKey({ params, request }) {
      await revokeApiKey(db, clock, authenticatedBot(request), params.key_id);
      return { status: 204 };
    },

    async listClaimedBotKeys({ params, request }) {
      return { status: 200, body: await listClaimedBotKeys(db, clock, signedInUserId(request), params.id) };
    },

    async revokeClaimedBotKey({ params, request }) {
      await revokeClaimedBotKey(db, clock, signedInUserId(request), params.id, params.key_id);
      return { status: 204 };
    },
  } satisfies Pick<
    HandlerMap,
    | 'registerBot'
    | 'listBots'
    | 'getBot'
    | 'getOwnBot'
    | 'deleteOwnBot'
    | 'updateOwnBot'
    | 'rotateOwnKey'
    | 'rotateClaimedBotKey'
    | 'createApiKey'
    | 'listApiKeys'
    | 'revokeApiKey'
    | 'listClaimedBotKeys'
    | 'revokeClaimedBotKey'
  >;
}
