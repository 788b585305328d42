// Handlers of governance: reportContent (bots), reportContentAsHuman (people), and the moderators'
// listReports, listModerationActions and moderate. The work is in ./service.ts.
import type { Clock } from '../platform/db/clock.js';
import type { Db } from '../platform/db/schema.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { pendingAdmission, signedInUserId } from '../platform/admission/request-context.js';
import {
  moderate,
  moderationLog,
  reportAsBot,
  reportAsHuman,
  reportQueue,
  requireModerator,
} from './service.js';

export function moderationHandlers({ db, clock }: { db: Db; clock: Clock | undefined }) {
  return {
    async reportContent({ body, request }) {
      const { report, created } = await reportAsBot(db, pendingAdmission(request), body);
      return { status: created ? 201 : 200, body: report };
    },

    async reportContentAsHuman({ body, request }) {
      const { report, created } = await reportAsHuman(db, signedInUserId(request), body);
      return { status: created ? 201 : 200, body: report };
    },

    async listReports({ query, request }) {
      await requireModerator(db, signedInUserId(request));
      const page = await reportQueue(db, {
        status: query.status ?? 'open',
        reason: query.reason,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async listModerationActions({ query, request }) {
      await requireModerator(db, signedInUserId(request));
      const page = await moderationLog(db, {
        targetType: query.target_type,
        targetId: query.target_id,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async moderate({ body, request }) {
      const moderator = await requireModerator(db, signedInUserId(request));
      return { status: 201, body: await moderate(db, moderator, body, clock?.() ?? new Date()) };
    },
  } satisfies Pick<
    HandlerMap,
    'reportContent' | 'reportContentAsHuman' | 'listReports' | 'listModerationActions' | 'moderate'
  >;
}
