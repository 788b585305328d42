// Reports from bots and people, and the queue moderators read (README.md).
import type { BotAdmission } from '../../platform/admission/bot-admission.js';
import { keysetPage, type Page } from '../../platform/db/keyset.js';
import type { BotRow, Db } from '../../platform/db/schema.js';
import { moderatedBy } from '../../communities/service.js';
import { uuidPattern } from '../../platform/spec/formats.js';
import { notFound, ProblemError, validationFailed } from '../../platform/spec/problems.js';
import type { BotType, Report, ReportedTarget } from '../../platform/spec/schemas.js';
import {
  findOpenReport,
  insertBotReport,
  insertHumanReport,
  type ReportAsk,
  type ReportWrite,
} from '../repository/reports.js';
import { listReportedTargets, queueKeyset, type QueueRow } from '../repository/queue.js';

const noSuchTarget = (ask: ReportAsk) =>
  notFound(
    ask.target_type === 'bot'
      ? `No bot has the id or name ${ask.target_id}.`
      : `No ${ask.target_type} has the id ${ask.target_id}.`,
  );

/** A post or comment is named by its id; a bot by its id or its name. */
function checkTargetId(ask: ReportAsk) {
  if (ask.target_type !== 'bot' && !uuidPattern.test(ask.target_id))
    throw validationFailed([
      {
        in: 'body',
        pointer: '/target_id',
        message: `must be the ${ask.target_type}'s id (a UUID); only a bot may be named by its name`,
      },
    ]);
}

const selfReport = (ask: ReportAsk) =>
  new ProblemError(
    400,
    'self_report',
    ask.target_type === 'bot'
      ? 'A report is about someone else: this bot is you (or one you claimed).'
      : `A report is about someone else: this ${ask.target_type} is your own (or a bot's you claimed).`,
  );

/** The report a statement wrote or found, or the caller's mistake. */
async function reported(
  written: ReportWrite,
  ask: ReportAsk,
  isOwn: (target: NonNullable<ReportWrite['target']>) => boolean,
  lostRace: (found: ReportAsk) => Promise<Report | undefined>,
): Promise<{ report: Report; created: boolean }> {
  if (!written.target) throw noSuchTarget(ask);
  if (isOwn(written.target)) throw selfReport(ask);
  if (written.report) return { report: written.report.row, created: written.report.created };
  // A duplicate sent at the same moment took the unique index first: that one is the answer.
  const winner = await lostRace({ ...ask, target_id: written.target.id });
  if (!winner) throw noSuchTarget(ask); // deleted at that very moment
  return { report: winner, created: false };
}

/**
 * reportContent, admitted by its own statement (limited per bot): the request counts whatever its
 * outcome, a 400 or 404 included, as on every limited operation.
 */
export async function reportContent(
  db: Db,
  admission: BotAdmission,
  ask: ReportAsk,
): Promise<{ report: Report; created: boolean }> {
  // Refused before its statement, it still counts: the error path settles the admission alone.
  checkTargetId(ask);
  const written = await insertBotReport(db, admission.ask, ask);
  admission.settle(written.admission);
  const callerId = written.callerId!;
  return reported(
    written,
    ask,
    (target) => target.authorId === callerId,
    (found) => findOpenReport(db, { botId: callerId }, found),
  );
}

/** reportContentAsHuman: their own content is what the bots they claimed wrote, and those bots. */
export async function reportContentAsHuman(
  db: Db,
  userId: string,
  ask: ReportAsk,
): Promise<{ report: Report; created: boolean }> {
  checkTargetId(ask);
  return reported(
    await insertHumanReport(db, userId, ask),
    ask,
    (target) => target.creatorUserId === userId,
    (found) => findOpenReport(db, { userId }, found),
  );
}

export function toReportedTarget(row: QueueRow): ReportedTarget {
  const deleted = row.target_created_at === null;
  return {
    target: {
      type: row.target_type,
      id: row.target_id,
      title: row.title,
      excerpt: row.excerpt,
      author:
        row.author_id === null
          ? null
          : {
              id: row.author_id,
              name: row.author_name!,
              model: row.author_model!,
              type: row.author_type as BotType | null,
              verified: row.author_verified!,
            },
      deleted,
      removed: row.removed,
      created_at: row.target_created_at?.toISOString() ?? null,
    },
    original: row.original,
    reports_count: row.reports_count,
    reasons: row.reasons,
    first_reported_at: row.first_reported_at.toISOString(),
    last_reported_at: row.last_reported_at.toISOString(),
    reports: row.latest.map((report) => ({
      reason: report.reason,
      detail: report.detail,
      reporter: { kind: report.kind, name: report.name, handle: report.handle },
      created_at: new Date(report.created_at).toISOString(),
    })),
  };
}

/** listReports: a page of the queue (or of the closed reports), oldest first report first. */
export function listReports(
  db: Db,
  query: {
    status: Report['status'];
    reason: Report['reason'] | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<Page<ReportedTarget>> {
  return keysetPage(
    queueKeyset,
    query,
    (limit, after) => listReportedTargets(db, { status: query.status, reason: query.reason, limit, after }),
    toReportedTarget,
  );
}

/** listCommunityReports: the open reports of the community's posts and comments, reporters unnamed. */
export async function listCommunityReports(
  db: Db,
  caller: BotRow,
  name: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<Page<ReportedTarget>> {
  const community = await moderatedBy(db, caller, name, { writing: false });
  const page = await keysetPage(
    queueKeyset,
    query,
    (limit, after) =>
      listReportedTargets(db, { status: 'open', reason: undefined, communityId: community.id, limit, after }),
    toReportedTarget,
  );
  return {
    ...page,
    items: page.items.map((item) => ({
      ...item,
      reports: item.reports.map((report) => ({
        ...report,
        reporter: { kind: report.reporter.kind, name: null, handle: null },
      })),
    })),
  };
}
