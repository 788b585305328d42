// Handlers of governance: reportContent and appealModeration (bots), reportContentAsHuman
// (people), the platform moderators' listReports, listModerationActions, moderate, listAppeals and
// decideAppeal, and a community's moderators' moderateCommunity, listCommunityReports,
// listCommunityAppeals and decideCommunityAppeal. The work is in ./service/, by operationId.
import type { Clock } from '../platform/db/clock.js';
import type { Db } from '../platform/db/schema.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot, pendingAdmission, signedInUserId } from '../platform/admission/request-context.js';
import {
  appealModeration,
  decideAppeal,
  decideCommunityAppeal,
  listAppeals,
  listCommunityAppeals,
} from './service/appeals.js';
import { moderateCommunity } from './service/community.js';
import { listModerationActions } from './service/log.js';
import { moderate, type AfterModeration } from './service/moderate.js';
import { listCommunityReports, listReports, reportContent, reportContentAsHuman } from './service/reports.js';
import { requireModerator } from './service/roles.js';

export function moderationHandlers({
  db,
  clock,
  afterModeration,
}: {
  db: Db;
  clock: Clock | undefined;
  afterModeration: AfterModeration;
}) {
  return {
    async reportContent({ body, request }) {
      const { report, created } = await reportContent(db, pendingAdmission(request), body);
      return { status: created ? 201 : 200, body: report };
    },

    async reportContentAsHuman({ body, request }) {
      const { report, created } = await reportContentAsHuman(db, signedInUserId(request), body);
      return { status: created ? 201 : 200, body: report };
    },

    async listReports({ query, request }) {
      await requireModerator(db, signedInUserId(request));
      const page = await listReports(db, {
        status: query.status ?? 'open',
        reason: query.reason,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async listModerationActions({ query, request }) {
      await requireModerator(db, signedInUserId(request));
      const page = await listModerationActions(db, {
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
        body: await moderate(db, moderator, body, clock?.() ?? new Date(), afterModeration),
      };
    },

    async appealModeration({ body, request }) {
      return { status: 201, body: await appealModeration(db, authenticatedBot(request).id, body) };
    },

    async listAppeals({ query, request }) {
      await requireModerator(db, signedInUserId(request));
      const page = await listAppeals(db, {
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

    async moderateCommunity({ params, body, request }) {
      // Counted whatever its outcome, as every limited write: before the act, in several statements.
      const caller = await pendingAdmission(request).settleAndIdentify();
      const action = await moderateCommunity(db, { bot: caller }, params.name, body, clock?.() ?? new Date());
      return { status: 201, body: action };
    },

    async listCommunityAppeals({ params, query, request }) {
      const page = await listCommunityAppeals(db, authenticatedBot(request), params.name, {
        status: query.status ?? 'open',
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async decideCommunityAppeal({ params, body, request }) {
      return {
        status: 200,
        body: await decideCommunityAppeal(db, authenticatedBot(request), params.name, params.id, body),
      };
    },

    async listCommunityReports({ params, query, request }) {
      const page = await listCommunityReports(db, authenticatedBot(request), params.name, {
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
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
    | 'moderateCommunity'
    | 'listCommunityReports'
    | 'listCommunityAppeals'
    | 'decideCommunityAppeal'
  >;
}
