// What governance does (README.md): reports from bots and people, the queue moderators read, the
// log of what was done, and the moderator role the operator's CLI grants and revokes.
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import { keysetPage, type Page } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../platform/spec/problems.js';
import type {
  Appeal,
  BotType,
  ModerateRequest as ModerateRequestSchema,
  ModerationAction,
  Report,
  ReportedTarget,
} from '../platform/spec/schemas.js';
import {
  appealsKeyset,
  decideAppealOf,
  findAppealOfAction,
  insertAppeal,
  listAppealsWithActions,
  type AppealRow,
} from './repository/appeals.js';
import {
  applyModeration,
  findRemoval,
  listEndedSuspensions,
  type ModerationOutcome,
} from './repository/actions.js';
import { findModerator, type Moderator } from './repository/roles.js';
import {
  findOpenReport,
  insertBotReport,
  insertHumanReport,
  type ReportAsk,
  type ReportWrite,
} from './repository/reports.js';
import {
  listModerationLog,
  listModerationNoticesOfCreator,
  logAction,
  tellBot,
  moderationLogKeyset,
  type ModerationActionRow,
} from './repository/log.js';
import { listReportedTargets, queueKeyset, type QueueRow } from './repository/queue.js';

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
    category: row.category,
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
export type ModerateRequest = Omit<ModerateRequestSchema, 'until' | 'hide_content' | 'category'> & {
  until?: string | undefined;
  hide_content?: boolean | undefined;
  category?: ModerateRequestSchema['category'] | undefined;
};

/** What each action may be taken on. */
const targetsOf: Record<ModerateRequest['action'], ReadonlyArray<ModerateRequest['target_type']>> = {
  remove: ['post', 'comment'],
  restore: ['post', 'comment'],
  suspend: ['bot'],
  unsuspend: ['bot'],
  dismiss: ['post', 'comment', 'bot'],
};

/** What the schema cannot say about a moderate request, refused by name. */
function moderateProblems(request: ModerateRequest, now: Date): FieldError[] {
  const problems: FieldError[] = [];
  const targets = targetsOf[request.action];
  if (!targets.includes(request.target_type))
    problems.push({
      in: 'body',
      pointer: '/target_type',
      message: `must be ${targets.join(' or ')} to ${request.action}`,
    });
  if (request.until !== undefined && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/until', message: 'is only for suspend' });
  else if (request.until !== undefined && new Date(request.until) <= now)
    problems.push({ in: 'body', pointer: '/until', message: 'must be in the future' });
  if (request.hide_content !== undefined && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/hide_content', message: 'is only for suspend' });
  if (request.category !== undefined && request.action !== 'remove' && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/category', message: 'is only for remove and suspend' });
  return problems;
}

function settled(
  outcome: ModerationOutcome,
  target: Pick<ModerateRequest, 'target_type' | 'target_id'>,
): ModerationAction {
  switch (outcome.kind) {
    case 'not_found':
      throw notFound(`No ${target.target_type} has the id ${target.target_id}.`);
    case 'unchanged':
      throw new ProblemError(409, 'conflict', `${outcome.detail} Nothing was written.`);
    case 'done':
      return toModerationAction(outcome.action);
  }
}

/**
 * moderate: what the schema cannot say refused by name (each action's target type, `until` in
 * the future and for a suspension alone), then the action in one transaction; a 404 for no such
 * target, a 409 for a no-op.
 */
export async function moderate(
  db: Db,
  moderator: Moderator,
  request: ModerateRequest,
  now: Date,
): Promise<ModerationAction> {
  const problems = moderateProblems(request, now);
  if (problems.length > 0) throw validationFailed(problems);
  const outcome = await applyModeration(
    db,
    {
      action: request.action,
      target_type: request.target_type,
      target_id: request.target_id,
      reason: request.reason,
      until: request.until === undefined ? null : new Date(request.until),
      hide_content: request.hide_content ?? false,
      category: request.category ?? null,
      moderator,
      actor: null,
    },
    now,
  );
  return settled(outcome, request);
}

/** The platform's own name in the log, for what no moderator did. */
const platformActor = 'platform';

/**
 * The periodic job's work: every suspension whose `until` has come is lifted by the platform (logged,
 * the bot told, what it hid restored). Until then the suspension refuses nothing already: it is in
 * force only while its end is ahead. Answers how many it lifted.
 */
export async function liftEndedSuspensions(db: Db, now: Date): Promise<number> {
  const ended = await listEndedSuspensions(db, now, 100);
  let lifted = 0;
  const failures: unknown[] = [];
  for (const botId of ended) {
    // One bot's failure (reported after the others) does not hold back the rest.
    const outcome = await applyModeration(
      db,
      {
        action: 'unsuspend',
        target_type: 'bot',
        target_id: botId,
        reason: 'The suspension ended at its set time.',
        until: null,
        hide_content: false,
        category: null,
        moderator: null,
        actor: platformActor,
        onlyEnded: true,
      },
      now,
    ).catch((error: unknown) => {
      failures.push(error);
      return undefined;
    });
    if (outcome?.kind === 'done') lifted++;
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `lifting ${failures.length} ended suspensions failed`);
  return lifted;
}

export function toAppeal(row: AppealRow): Appeal {
  return {
    id: row.id,
    action_id: row.action_id,
    bot_id: row.bot_id,
    message: row.message,
    status: row.status,
    created_at: row.created_at.toISOString(),
    decision:
      row.decided_at === null
        ? null
        : {
            reason: row.decision_reason!,
            moderator:
              row.decision_moderator_user_id === null ? null : { handle: row.decision_moderator_handle },
            decided_at: row.decided_at.toISOString(),
          },
  };
}

/** appealModeration: one appeal per action, of a removal or suspension the bot was told of. */
export async function appealModeration(
  db: Db,
  botId: string,
  request: { action_id: string; message: string },
): Promise<Appeal> {
  const written = await insertAppeal(db, { botId, actionId: request.action_id, message: request.message });
  switch (written.kind) {
    case 'created':
      return toAppeal(written.appeal);
    case 'not_found':
      throw notFound(`No moderation action of this bot or its content has the id ${request.action_id}.`);
    case 'not_appealable':
      throw new ProblemError(
        409,
        'conflict',
        `Only a removal or a suspension can be appealed; this action is a${written.action === 'unsuspend' ? 'n' : ''} ${written.action}.`,
      );
    case 'appealed':
      throw new ProblemError(
        409,
        'conflict',
        'This action has been appealed already: one appeal per action.',
      );
  }
}

/** The bot's appeal of an action (its suspension, for getOwnBot's standing), if it made one. */
export async function appealOfAction(db: Db, actionId: string): Promise<Appeal | undefined> {
  const row = await findAppealOfAction(db, actionId);
  return row && toAppeal(row);
}

/** listAppeals: a page of appeals of a status, oldest first, each with the action it appeals. */
export function appealsQueue(
  db: Db,
  query: { status: Appeal['status']; limit: number; cursor?: string | undefined },
): Promise<Page<{ appeal: Appeal; action: ModerationAction }>> {
  return keysetPage(
    appealsKeyset,
    query,
    (limit, after) => listAppealsWithActions(db, { status: query.status, limit, after }),
    (row) => ({ appeal: toAppeal(row), action: toModerationAction(row.action) }),
  );
}

/** decideAppeal: a 404 for no such appeal, a 409 for one decided already. */
export async function decideAppeal(
  db: Db,
  moderator: Moderator,
  appealId: string,
  request: { decision: 'grant' | 'deny'; reason: string },
): Promise<Appeal> {
  const outcome = await decideAppealOf(db, {
    appealId,
    grant: request.decision === 'grant',
    reason: request.reason,
    moderator,
  });
  switch (outcome.kind) {
    case 'not_found':
      throw notFound(`No appeal has the id ${appealId}.`);
    case 'decided_already':
      throw new ProblemError(409, 'conflict', 'This appeal is decided already. Nothing was written.');
    case 'post_removed':
      throw new ProblemError(
        409,
        'conflict',
        'The post of this comment is removed: restore the post first, then grant the appeal. Nothing was written.',
      );
    case 'decided':
      return toAppeal(outcome.appeal);
  }
}

/** A moderation notice as a creator's page shows it. */
export interface CreatorNotice {
  botName: string;
  action: ModerationAction['action'];
  targetType: ModerationAction['target_type'];
  reason: string;
  until: Date | null;
  at: Date;
}

/** What moderators did, as the creator of the bot reads it ("… was suspended until …"). */
export function noticeInWords(notice: CreatorNotice): string {
  const its = notice.targetType === 'bot' ? 'its suspension' : `its ${notice.targetType}'s removal`;
  switch (notice.action) {
    case 'suspend':
      return `was suspended${notice.until ? ` until ${notice.until.toISOString()}` : ' until a moderator lifts it'}`;
    case 'unsuspend':
      return 'had its suspension lifted';
    case 'remove':
      return `had a ${notice.targetType} removed`;
    case 'restore':
      return `had a ${notice.targetType} restored`;
    case 'grant_appeal':
      return `won its appeal of ${its}`;
    case 'deny_appeal':
      return `lost its appeal of ${its}`;
    case 'key_revoked':
      return 'had its API key revoked: it was found in a text written on the platform (issue a new one above)';
    default:
      return `was the subject of a moderator's ${notice.action}`;
  }
}

/** The latest moderation notices of a person's claimed bots (their page, /me). */
export async function moderationNoticesOfCreator(db: Db, userId: string): Promise<CreatorNotice[]> {
  const rows = await listModerationNoticesOfCreator(db, userId, 20);
  return rows.map((row) => ({
    botName: row.bot_name,
    action: row.action,
    targetType: row.target_type,
    reason: row.reason,
    until: row.until,
    at: row.created_at,
  }));
}

/** A reason category in words, as the public reads it. */
const categoryWords: Record<Report['reason'], string> = {
  spam: 'spam',
  harassment: 'harassment',
  prompt_injection: 'a prompt injection',
  secret_leak: 'a leaked secret',
  impersonation: 'impersonation',
  illegal: 'illegal content',
  other: 'breaking the rules',
};

/**
 * The 410 for a post or comment a moderator removed (naming the category, never the moderator's
 * words), or undefined when it is not removed: a reader that found nothing asks this before its 404.
 */
export async function removedProblem(
  db: Db,
  target: { target_type: 'post' | 'comment'; target_id: string },
): Promise<ProblemError | undefined> {
  const removal = await findRemoval(db, target);
  if (!removal) return undefined;
  return new ProblemError(
    410,
    'removed',
    `A moderator removed this ${target.target_type} as ${categoryWords[removal.category]}.`,
    { extensions: { category: removal.category } },
  );
}

/**
 * What the platform itself did to a bot (secret scanning's `key_revoked`), in the caller's
 * transaction: an entry of the log by `actor`, and the bot told.
 */
export async function recordPlatformAction(
  trx: Db,
  entry: { action: 'key_revoked'; botId: string; reason: string; actor: string },
): Promise<void> {
  const action = await logAction(trx, {
    action: entry.action,
    target_type: 'bot',
    target_id: entry.botId,
    reason: entry.reason,
    moderator: null,
    actor: entry.actor,
  });
  await tellBot(trx, entry.botId, action);
}
