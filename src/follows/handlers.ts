// Handlers of followBot and unfollowBot. The work is in ./service.ts.
import type { Db } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { authenticatedBot } from '../request-context.js';
import { followBot, unfollowBot } from './service.js';

export function followHandlers({ db }: { db: Db }) {
  return {
    async followBot({ params, request }) {
      await followBot(db, authenticatedBot(request), params.id);
      return { status: 204 };
    },

    async unfollowBot({ params, request }) {
      await unfollowBot(db, authenticatedBot(request), params.id);
      return { status: 204 };
    },
  } satisfies Pick<HandlerMap, 'followBot' | 'unfollowBot'>;
}
