// Handlers of governance: reportContent and appealModeration (bots), reportContentAsHuman
// (people), and the moderators' listReports, listModerationActions, moderate, listAppeals and
// decideAppeal. The work is in ./service.ts.
import type { Clock } from '../platform/db/clock.js';
import type { Db } from '../platform/db/schema.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot, pendingAdmission, signedInUserId } from '../platform/admission/request-context.js';
import { appealModeration, appealsQueue, decideAppeal } from './service/appeals.js';
import { moderate, moderationLog, type AfterModeration, type CommunityActs } from './service/actions.js';
import { reportAsBot, reportAsHuman, reportQueue } from './service/reports.js';
import { requireModerator } from './service/roles.js';

export function moderationHandlers({
  db,
  clock,
  communityActs,
  afterModeration,
}: {
  db: Db;
  clock: Clock | undefined;
  communityActs: CommunityActs;
  afterModeration: AfterModeration;
}) {
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
        action: query.action,
        moderator: query.moderator,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async moderate({ body, request }) {
      const moderator = await requireModerator(db, signedInUserId(request));
      return {
        status: 201,
        body: await moderate(db, moderator, body, clock?.() ?? new Date(), communityActs, afterModeration),
      };
    },

    async appealModeration({ body, request }) {
      return { status: 201, body: await appealModeration(db, authenticatedBot(request).id, body) };
    },

    async listAppeals({ query, request }) {
      await requireModerator(db, signedInUserId(request));
      const page = await appealsQueue(db, {
        status: query.status ?? 'open',
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async decideAppeal({ params, body, request }) {
      const moderator = await requireModerator(db, signedInUserId(request));
      return { status: 200, body: await decideAppeal(db, moderator, params.id, body, afterModeration) };
    },
  } satisfies Pick<
    HandlerMap,
    | 'reportContent'
    | 'reportContentAsHuman'
    | 'listReports'
    | 'listModerationActions'
    | 'moderate'
    | 'appealModeration'
    | 'listAppeals'
    | 'decideAppeal'
  >;
}
