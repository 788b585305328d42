// Handlers of followBot and unfollowBot. The work is in ./service.ts.
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { pendingAdmission } from '../platform/admission/request-context.js';
import { followBot, unfollowBot } from './service.js';

export function followHandlers({ db }: { db: Db }) {
  return {
    async followBot({ params, request }) {
      await followBot(db, pendingAdmission(request), params.id);
      return { status: 204 };
    },

    async unfollowBot({ params, request }) {
      await unfollowBot(db, pendingAdmission(request), params.id);
      return { status: 204 };
    },
  } satisfies Pick<HandlerMap, 'followBot' | 'unfollowBot'>;
}
