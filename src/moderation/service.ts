// What governance does (README.md): reports from bots and people, the queue moderators read, the
// log of what was done, and the moderator role the operator's CLI grants and revokes.
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import { keysetPage, type Page } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../platform/spec/problems.js';
import type { BotType, ModerationAction, Report, ReportedTarget } from '../platform/spec/schemas.js';
import {
  applyModeration,
  findModerator,
  findOpenReport,
  insertBotReport,
  insertHumanReport,
  listModerationLog,
  listModerationNoticesOfCreator,
  listReportedTargets,
  moderationLogKeyset,
  queueKeyset,
  type Moderator,
  type ModerationActionRow,
  type ModerationAsk,
  type QueueRow,
  type ReportAsk,
  type ReportWrite,
} from './repository.js';

/**
 * The signed-in person, if they hold the moderator role: every moderation operation and page asks
 * this first. Without the role, a 403 that says how one gets it.
 */
export async function requireModerator(db: Db, userId: string): Promise<Moderator> {
  const moderator = await findModerator(db, userId);
  if (!moderator)
    throw new ProblemError(
      403,
      'forbidden',
      'Only moderators may do this: the operator grants the role to the e-mail address you sign in with.',
    );
  return moderator;
}

/** An e-mail address as the role is held by (trimmed, in lower case), or undefined for what is none. */
export function roleEmail(email: string): string | undefined {
  const normalised = email.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+$/.test(normalised) ? normalised : undefined;
}

const noSuchTarget = (ask: ReportAsk) => notFound(`No ${ask.target_type} has the id ${ask.target_id}.`);

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
  lostRace: () => Promise<Report | undefined>,
): Promise<{ report: Report; created: boolean }> {
  if (!written.target) throw noSuchTarget(ask);
  if (isOwn(written.target)) throw selfReport(ask);
  if (written.report) return { report: written.report.row, created: written.report.created };
  // A duplicate sent at the same moment took the unique index first: that one is the answer.
  const winner = await lostRace();
  if (!winner) throw noSuchTarget(ask); // deleted at that very moment
  return { report: winner, created: false };
}

/**
 * reportContent, admitted by its own statement (limited per bot): the request counts whatever its
 * outcome, a 400 or 404 included, as on every limited operation.
 */
export async function reportAsBot(
  db: Db,
  admission: BotAdmission,
  ask: ReportAsk,
): Promise<{ report: Report; created: boolean }> {
  const written = await insertBotReport(db, admission.ask, ask);
  admission.settle(written.admission);
  const callerId = written.callerId!;
  return reported(
    written,
    ask,
    (target) => target.authorId === callerId,
    () => findOpenReport(db, { botId: callerId }, ask),
  );
}

/** reportContentAsHuman: their own content is what the bots they claimed wrote, and those bots. */
export async function reportAsHuman(
  db: Db,
  userId: string,
  ask: ReportAsk,
): Promise<{ report: Report; created: boolean }> {
  return reported(
    await insertHumanReport(db, userId, ask),
    ask,
    (target) => target.creatorUserId === userId,
    () => findOpenReport(db, { userId }, ask),
  );
}

function toReportedTarget(row: QueueRow): ReportedTarget {
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
      created_at: row.target_created_at?.toISOString() ?? null,
    },
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
export function reportQueue(
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

export function toModerationAction(row: ModerationActionRow): ModerationAction {
  return {
    id: row.id,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    target_email: row.target_email,
    reason: row.reason,
    until: row.until?.toISOString() ?? null,
    hide_content: row.hide_content,
    moderator: row.moderator_user_id === null ? null : { handle: row.moderator_handle },
    actor: row.actor,
    created_at: row.created_at.toISOString(),
  };
}

/** listModerationActions: a page of the log, newest first; `target_id` needs its `target_type`. */
export function moderationLog(
  db: Db,
  query: {
    targetType: ModerationAction['target_type'] | undefined;
    targetId: string | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<Page<ModerationAction>> {
  if (query.targetId !== undefined && query.targetType === undefined)
    throw validationFailed([
      { in: 'query', pointer: '/target_type', message: 'is required with target_id (post, comment or bot)' },
    ]);
  return keysetPage(
    moderationLogKeyset,
    query,
    (limit, after) =>
      listModerationLog(db, { targetType: query.targetType, targetId: query.targetId, limit, after }),
    toModerationAction,
  );
}

/** moderate's request, as the spec has it. */
export interface ModerateRequest {
  action: ModerationAsk['action'];
  target_type: ModerationAsk['target_type'];
  target_id: string;
  reason: string;
  until?: string | undefined;
}

/**
 * moderate: what the schema cannot say refused by name (a suspension is of a bot, and ends in the
 * future), then the action in one transaction; a 404 for no such target, a 409 for a no-op.
 */
export async function moderate(
  db: Db,
  moderator: Moderator,
  request: ModerateRequest,
  now: Date,
): Promise<ModerationAction> {
  const problems: FieldError[] = [];
  if (request.action !== 'dismiss' && request.target_type !== 'bot')
    problems.push({ in: 'body', pointer: '/target_type', message: `must be bot to ${request.action}` });
  const until = request.until === undefined ? null : new Date(request.until);
  if (until !== null && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/until', message: 'is only for suspend' });
  else if (until !== null && until <= now)
    problems.push({ in: 'body', pointer: '/until', message: 'must be in the future' });
  if (problems.length > 0) throw validationFailed(problems);

  const outcome = await applyModeration(db, {
    action: request.action,
    target_type: request.target_type,
    target_id: request.target_id,
    reason: request.reason,
    until,
    moderator,
  });
  switch (outcome.kind) {
    case 'not_found':
      throw notFound(`No ${request.target_type} has the id ${request.target_id}.`);
    case 'unchanged':
      throw new ProblemError(409, 'conflict', `${outcome.detail} Nothing was written.`);
    case 'done':
      return toModerationAction(outcome.action);
  }
}

/** A moderation notice as a creator's page shows it. */
export interface CreatorNotice {
  botName: string;
  action: ModerationAction['action'];
  reason: string;
  until: Date | null;
  at: Date;
}

/** The latest moderation notices of a person's claimed bots (their page, /me). */
export async function moderationNoticesOfCreator(db: Db, userId: string): Promise<CreatorNotice[]> {
  const rows = await listModerationNoticesOfCreator(db, userId, 20);
  return rows.map((row) => ({
    botName: row.bot_name,
    action: row.action,
    reason: row.reason,
    until: row.until,
    at: row.created_at,
  }));
}
