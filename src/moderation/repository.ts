// SQL of governance (the moderation migration): the moderator role, reports and the queue the
// database keeps of them (report_targets, by a trigger), and the append-only moderation log.
import { sql, type Selectable } from 'kysely';
import {
  admissionAnswer,
  admissionColumns,
  admissionShape,
  durableOnlyIfAdmitted,
  withAdmission,
} from '../platform/admission/repository.js';
import type { AdmissionAnswer, AdmissionAsk } from '../platform/admission/bot-admission.js';
import { afterKey, literalRows, type CursorKey, type Keyset } from '../platform/db/keyset.js';
import { retryingDeadlocks } from '../platform/db/deadlocks.js';
import type { BotRow, Db, ReportTargetsTable } from '../platform/db/schema.js';
import { suspensionOf } from '../platform/admission/suspension.js';
import type { BotSummary, Report } from '../platform/spec/schemas.js';

/** A signed-in person holding the moderator role, with their creator handle if they have one. */
export interface Moderator {
  userId: string;
  handle: string | null;
}

/** The person signed in as `userId`, if the e-mail address they signed in with holds the role. */
export async function findModerator(db: Db, userId: string): Promise<Moderator | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('moderators', (join) => join.on(sql<boolean>`moderators.email = lower(users.email)`))
    .leftJoin('creators', 'creators.user_id', 'users.id')
    .select(['users.id', 'creators.handle'])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  return row && { userId: row.id, handle: row.handle };
}

/** Who changes the role, for the log: the operator's CLI (its --actor) and why. */
export interface RoleChange {
  email: string;
  actor: string;
  reason: string;
}

/**
 * Grants the role to an address and logs it, in one statement; false (nothing logged) if the
 * address held it already.
 */
export async function grantModeratorRole(db: Db, change: RoleChange): Promise<boolean> {
  const row = await db
    .with('granted', (db) =>
      db
        .insertInto('moderators')
        .values({ email: change.email })
        .onConflict((conflict) => conflict.doNothing())
        .returning('email'),
    )
    .insertInto('moderation_actions')
    .columns(['action', 'target_type', 'target_email', 'reason', 'actor'])
    .expression((eb) =>
      eb
        .selectFrom('granted')
        .select([
          sql.lit('grant_moderator').as('action'),
          sql.lit('human').as('target_type'),
          'granted.email',
          sql.val(change.reason).as('reason'),
          sql.val(change.actor).as('actor'),
        ]),
    )
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Takes the role from an address and logs it, in one statement; false if it did not hold it. */
export async function revokeModeratorRole(db: Db, change: RoleChange): Promise<boolean> {
  const row = await db
    .with('revoked', (db) =>
      db.deleteFrom('moderators').where('moderators.email', '=', change.email).returning('email'),
    )
    .insertInto('moderation_actions')
    .columns(['action', 'target_type', 'target_email', 'reason', 'actor'])
    .expression((eb) =>
      eb
        .selectFrom('revoked')
        .select([
          sql.lit('revoke_moderator').as('action'),
          sql.lit('human').as('target_type'),
          'revoked.email',
          sql.val(change.reason).as('reason'),
          sql.val(change.actor).as('actor'),
        ]),
    )
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** What a report names, as reportContent and reportContentAsHuman take it. */
export interface ReportAsk {
  target_type: Report['target_type'];
  target_id: string;
  reason: Report['reason'];
  detail?: string | undefined;
}

/**
 * The author of a report's target as it is now (for a bot, the bot itself) and whoever claimed that
 * author: no row for an unknown or deleted target.
 */
function reportedTarget(ask: ReportAsk) {
  // A raw CTE body is not parenthesised for us.
  // Locked until the report commits, so that a deletion at the same moment waits for it and takes
  // it along (reports_forget_deleted_target) rather than leave an open report of nothing. A
  // comment's tombstone is an UPDATE of non-key columns, which only FOR SHARE holds off.
  const found = {
    post: sql`from posts t join bots on bots.id = t.bot_id where t.id = ${ask.target_id} for key share of t`,
    comment: sql`from comments t join bots on bots.id = t.bot_id
      where t.id = ${ask.target_id} and t.deleted_at is null for share of t`,
    bot: sql`from bots where bots.id = ${ask.target_id} for key share of bots`,
  }[ask.target_type];
  return sql<{ author_id: string; creator_user_id: string | null }>`(select bots.id as author_id,
    bots.creator_user_id ${found})`;
}

type ReportRow = Omit<Report, 'created_at'> & { created_at: string };

/** What a report's statement found: the target's author and claimant, and the report it wrote or found. */
export interface ReportWrite {
  /** Undefined when no such target exists (or it was deleted). */
  target: { authorId: string; creatorUserId: string | null } | undefined;
  /** The report written now, or the reporter's open one of this target found instead. */
  report: { row: Report; created: boolean } | undefined;
}

const reportJson = (table: string) =>
  sql<ReportRow | null>`case when ${sql.ref(`${table}.id`)} is null then null else jsonb_build_object(
    'id', ${sql.ref(`${table}.id`)}, 'target_type', ${sql.ref(`${table}.target_type`)},
    'target_id', ${sql.ref(`${table}.target_id`)}, 'reason', ${sql.ref(`${table}.reason`)},
    'detail', ${sql.ref(`${table}.detail`)}, 'status', ${sql.ref(`${table}.status`)},
    'created_at', ${sql.ref(`${table}.created_at`)}) end`;

function reportWrite(
  row:
    | {
        author_id: string | null;
        creator_user_id: string | null;
        inserted: ReportRow | null;
        existing: ReportRow | null;
      }
    | undefined,
): ReportWrite {
  const report = row?.inserted ?? row?.existing;
  return {
    target:
      row?.author_id == null ? undefined : { authorId: row.author_id, creatorUserId: row.creator_user_id },
    report: report
      ? {
          row: { ...report, created_at: new Date(report.created_at).toISOString() },
          created: row?.inserted != null,
        }
      : undefined,
  };
}

/**
 * reportContent's one statement (see withAdmission): the caller's admission, then, if it admits,
 * its report of the target unless the target is its own or it has an open one of it already (which
 * is answered instead). Two at once from one bot: the unique index lets one in, and the other
 * finds nothing here; the service reads the winner.
 */
export async function insertBotReport(
  db: Db,
  ask: AdmissionAsk,
  report: ReportAsk,
): Promise<{ admission: AdmissionAnswer; callerId: string | undefined } & ReportWrite> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .with('target', () => reportedTarget(report))
    .with('existing', (db) =>
      db
        .selectFrom('reports')
        .selectAll()
        .where('reports.status', '=', 'open')
        .where('reports.reporter_kind', '=', 'bot')
        .where('reports.reporter_bot_id', 'in', db.selectFrom('admitted').select('admitted.id'))
        .where('reports.target_type', '=', report.target_type)
        .where('reports.target_id', '=', report.target_id),
    )
    .with('inserted', (db) =>
      db
        .insertInto('reports')
        .columns(['target_type', 'target_id', 'reason', 'detail', 'reporter_kind', 'reporter_bot_id'])
        .expression(
          db
            .selectFrom(['admitted', 'target'])
            .select([
              sql.val(report.target_type).as('target_type'),
              sql.val(report.target_id).as('target_id'),
              sql.val(report.reason).as('reason'),
              sql.val(report.detail ?? null).as('detail'),
              sql.lit('bot').as('reporter_kind'),
              'admitted.id as reporter_bot_id',
            ])
            .where('admitted.admits', '=', true)
            .whereRef('target.author_id', '<>', 'admitted.id')
            .where((eb) => eb.not(eb.exists(eb.selectFrom('existing').select('existing.id')))),
        )
        .onConflict((conflict) => conflict.doNothing())
        .returningAll(),
    )
    .selectFrom('admitted')
    .leftJoin('target', (join) => join.onTrue())
    .leftJoin('inserted', (join) => join.onTrue())
    .leftJoin('existing', (join) => join.onTrue())
    .select(admissionColumns)
    .select(durableOnlyIfAdmitted)
    .select(['admitted.id as caller_id', 'target.author_id', 'target.creator_user_id'])
    .select([reportJson('inserted').as('inserted'), reportJson('existing').as('existing')])
    .executeTakeFirst();
  return { admission: admissionAnswer(row), callerId: row?.caller_id, ...reportWrite(row) };
}

/**
 * reportContentAsHuman's one statement: the person's report of the target unless they claimed its
 * author, or their open report of it.
 */
export async function insertHumanReport(db: Db, userId: string, report: ReportAsk): Promise<ReportWrite> {
  const row = await db
    .with('target', () => reportedTarget(report))
    .with('existing', (db) =>
      db
        .selectFrom('reports')
        .selectAll()
        .where('reports.status', '=', 'open')
        .where('reports.reporter_kind', '=', 'human')
        .where('reports.reporter_user_id', '=', userId)
        .where('reports.target_type', '=', report.target_type)
        .where('reports.target_id', '=', report.target_id),
    )
    .with('inserted', (db) =>
      db
        .insertInto('reports')
        .columns(['target_type', 'target_id', 'reason', 'detail', 'reporter_kind', 'reporter_user_id'])
        .expression(
          db
            .selectFrom('target')
            .select([
              sql.val(report.target_type).as('target_type'),
              sql.val(report.target_id).as('target_id'),
              sql.val(report.reason).as('reason'),
              sql.val(report.detail ?? null).as('detail'),
              sql.lit('human').as('reporter_kind'),
              sql.val(userId).as('reporter_user_id'),
            ])
            .where(sql<boolean>`target.creator_user_id is distinct from ${userId}`)
            .where((eb) => eb.not(eb.exists(eb.selectFrom('existing').select('existing.id')))),
        )
        .onConflict((conflict) => conflict.doNothing())
        .returningAll(),
    )
    .selectFrom(sql`(select 1)`.as('one'))
    .leftJoin('target', (join) => join.onTrue())
    .leftJoin('inserted', (join) => join.onTrue())
    .leftJoin('existing', (join) => join.onTrue())
    .select(['target.author_id', 'target.creator_user_id'])
    .select([reportJson('inserted').as('inserted'), reportJson('existing').as('existing')])
    .executeTakeFirst();
  return reportWrite(row);
}

/** The open report of a target by a bot or a person (the one a concurrent duplicate lost to). */
export async function findOpenReport(
  db: Db,
  reporter: { botId: string } | { userId: string },
  report: ReportAsk,
): Promise<Report | undefined> {
  let query = db
    .selectFrom('reports')
    .select(['id', 'target_type', 'target_id', 'reason', 'detail', 'status', 'created_at'])
    .where('status', '=', 'open')
    .where('target_type', '=', report.target_type)
    .where('target_id', '=', report.target_id);
  query =
    'botId' in reporter
      ? query.where('reporter_kind', '=', 'bot').where('reporter_bot_id', '=', reporter.botId)
      : query.where('reporter_kind', '=', 'human').where('reporter_user_id', '=', reporter.userId);
  const row = await query.executeTakeFirst();
  return row && { ...row, created_at: row.created_at.toISOString() };
}

/** A row of the queue: a reported target with its counts, its content as it is now and its latest reports. */
export interface QueueRow extends Selectable<ReportTargetsTable> {
  title: string | null;
  excerpt: string | null;
  target_created_at: Date | null;
  removed: boolean;
  author_id: string | null;
  author_name: string | null;
  author_model: string | null;
  author_type: string | null;
  author_verified: boolean | null;
  /** A flood's copy: the first post of the body (null for anything else, or once it is gone). */
  original: { id: string; title: string; author: BotSummary } | null;
  latest: Array<{
    reason: Report['reason'];
    detail: string | null;
    kind: 'bot' | 'human' | 'system';
    name: string | null;
    handle: string | null;
    created_at: string;
  }>;
}

/** The queue pages oldest first report first, ties by target. */
export const queueKeyset: Keyset<QueueRow> = {
  kind: 'reports',
  key: [
    { column: 'first_reported_at', part: 'timestamp' },
    { column: 'target_type', part: 'text' },
    { column: 'target_id', part: 'uuid' },
  ],
};

/** How much of a reported text the queue shows. */
const excerptLength = 280;
/** The reports shown with each target of the queue. */
const latestReports = 5;

/**
 * A page of the queue, read in one statement: report_targets in order (one index), each target's
 * content as it is now and its latest reports of that status beside it.
 */
export async function listReportedTargets(
  db: Db,
  query: {
    status: Report['status'];
    reason: Report['reason'] | undefined;
    limit: number;
    after: CursorKey | undefined;
  },
): Promise<QueueRow[]> {
  const filters = [sql`rt.status = ${query.status}`];
  if (query.reason) filters.push(sql`rt.reasons ? ${query.reason}`);
  if (query.after)
    filters.push(afterKey(['rt.first_reported_at', 'rt.target_type', 'rt.target_id'], 'asc', query.after));
  const { rows } = await sql<QueueRow>`
    select rt.status, rt.target_type, rt.target_id, rt.reports_count, rt.reasons,
           rt.first_reported_at, rt.last_reported_at,
           content.title, content.excerpt, content.created_at as target_created_at,
           coalesce(content.removed, false) as removed,
           author.id as author_id, author.name as author_name, author.model as author_model,
           author.type as author_type, author.creator_user_id is not null as author_verified,
           latest.reports as latest, original.post as original
    from report_targets rt
    left join lateral (
      select p.title, left(p.body, ${excerptLength}) as excerpt, p.created_at, p.bot_id as author_id,
             false as removed
      from posts p where rt.target_type = 'post' and p.id = rt.target_id
      union all
      select null, left(c.body, ${excerptLength}), c.created_at, c.bot_id, false
      from comments c where rt.target_type = 'comment' and c.id = rt.target_id and c.deleted_at is null
      union all
      select b.name, left(b.bio, ${excerptLength}), b.created_at, b.id, false
      from bots b where rt.target_type = 'bot' and b.id = rt.target_id
      union all
      -- Removed: shown to moderators as it was, from what the removal kept.
      select kept.row ->> 'title', left(kept.row ->> 'body', ${excerptLength}),
             (kept.row ->> 'created_at')::timestamptz, rc.author_id, true
      from removed_content rc
      cross join lateral (select coalesce(rc.content -> 'post', rc.content -> 'comment') as row) kept
      where rc.target_type = rt.target_type and rc.target_id = rt.target_id
    ) content on true
    left join bots author on author.id = content.author_id
    cross join lateral (
      select coalesce(jsonb_agg(jsonb_build_object(
               'reason', r.reason, 'detail', r.detail, 'kind', r.reporter_kind,
               'name', reporter_bot.name, 'handle', reporter_creator.handle,
               'created_at', r.created_at) order by r.seq desc), '[]') as reports
      from (
        select * from reports r
        where r.target_type = rt.target_type and r.target_id = rt.target_id and r.status = rt.status
        order by r.seq desc
        limit ${sql.lit(latestReports)}
      ) r
      left join bots reporter_bot on reporter_bot.id = r.reporter_bot_id
      left join creators reporter_creator on reporter_creator.user_id = r.reporter_user_id
    ) latest
    left join lateral (
      select jsonb_build_object('id', p.id, 'title', p.title, 'author', jsonb_build_object(
               'id', b.id, 'name', b.name, 'model', b.model, 'type', b.type,
               'verified', b.creator_user_id is not null)) as post
      from reports r
      join posts p on p.id = r.original_post_id
      join bots b on b.id = p.bot_id
      where r.target_type = rt.target_type and r.target_id = rt.target_id and r.status = rt.status
        and r.original_post_id is not null
      order by r.seq desc
      limit 1
    ) original on true
    where ${sql.join(filters, sql` and `)}
    order by rt.first_reported_at, rt.target_type, rt.target_id
    limit ${sql.lit(literalRows(query.limit))}`.execute(db);
  return rows;
}

function selectModerationActions(db: Db) {
  return db.selectFrom('moderation_actions').select(actionColumns);
}
export type ModerationActionRow = Awaited<
  ReturnType<ReturnType<typeof selectModerationActions>['executeTakeFirstOrThrow']>
>;

/** The log pages newest first, in the order its entries were made. */
export const moderationLogKeyset: Keyset<ModerationActionRow> = {
  kind: 'moderation-actions',
  key: [{ column: 'seq', part: 'integer' }],
};

/** A page of the log, newest first; one target's history if one is named. */
export async function listModerationLog(
  db: Db,
  query: {
    targetType: ModerationActionRow['target_type'] | undefined;
    targetId: string | undefined;
    limit: number;
    after: CursorKey | undefined;
  },
): Promise<ModerationActionRow[]> {
  let select = selectModerationActions(db);
  if (query.targetType) select = select.where('target_type', '=', query.targetType);
  if (query.targetId) select = select.where('target_id', '=', query.targetId);
  if (query.after) select = select.where(afterKey(['seq'], 'desc', query.after));
  return select
    .orderBy('seq', 'desc')
    .limit(sql.lit(literalRows(query.limit)))
    .execute();
}

/** What moderate asks, and who asks it: a moderator, or the platform itself (`actor`). */
export interface ModerationAsk {
  action: 'remove' | 'restore' | 'suspend' | 'unsuspend' | 'dismiss';
  target_type: Report['target_type'];
  target_id: string;
  reason: string;
  until: Date | null;
  hide_content: boolean;
  /** For remove and suspend; null: what most of the target's open reports say. */
  category: Report['reason'] | null;
  moderator: Moderator | null;
  actor: string | null;
  /** For the platform's lifting: only a suspension whose end has come (not one a moderator made since). */
  onlyEnded?: boolean;
}

/** What moderate found: the action written, or why nothing was. */
export type ModerationOutcome =
  | { kind: 'done'; action: ModerationActionRow }
  | { kind: 'not_found' }
  | { kind: 'unchanged'; detail: string };

/** A target as moderate needs it, locked: its author (a bot is its own), its removal, and a bot's suspension. */
export interface LockedTarget {
  authorId: string;
  /** The removal in force: its log entry, and whether that was a `remove` or a suspension that hid it. */
  removal: { by: string; byAction: ModerationActionRow['action'] } | undefined;
  suspension: Pick<BotRow, 'suspended_at' | 'suspended_until' | 'suspension_reason' | 'suspension_action_id'>;
}

const noSuspension = {
  suspended_at: null,
  suspended_until: null,
  suspension_reason: null,
  suspension_action_id: null,
};

interface Target {
  target_type: Report['target_type'];
  target_id: string;
}

function lockLive(trx: Db, target: Target) {
  return (
    target.target_type === 'post'
      ? trx.selectFrom('posts').select('bot_id').where('id', '=', target.target_id)
      : trx
          .selectFrom('comments')
          .select('bot_id')
          .where('id', '=', target.target_id)
          .where('deleted_at', 'is', null)
  )
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The target locked for the action; a removed post or comment is found by what its removal kept.
 * A bot is locked FOR NO KEY UPDATE, as every writer of its counters locks it, so that a reply or a
 * mention naming it (a key share) does not wait.
 */
export async function lockTarget(trx: Db, target: Target): Promise<LockedTarget | undefined> {
  if (target.target_type === 'bot') {
    const bot = await trx
      .selectFrom('bots')
      .select(['id', 'suspended_at', 'suspended_until', 'suspension_reason', 'suspension_action_id'])
      .where('id', '=', target.target_id)
      .forNoKeyUpdate()
      .executeTakeFirst();
    return bot && { authorId: bot.id, removal: undefined, suspension: bot };
  }
  const live = await lockLive(trx, target);
  if (live?.bot_id) return { authorId: live.bot_id, removal: undefined, suspension: noSuspension };
  const removed = await trx
    .selectFrom('removed_content')
    .innerJoin('moderation_actions as removal', 'removal.id', 'removed_content.removed_by')
    .select(['removed_content.author_id', 'removed_content.removed_by', 'removal.action'])
    .where('removed_content.target_type', '=', target.target_type)
    .where('removed_content.target_id', '=', target.target_id)
    .forUpdate('removed_content')
    .executeTakeFirst();
  if (removed)
    return {
      authorId: removed.author_id,
      removal: { by: removed.removed_by, byAction: removed.action },
      suspension: noSuspension,
    };
  // Restored by someone else while this waited for the removal's row: live again.
  const again = await lockLive(trx, target);
  return again?.bot_id ? { authorId: again.bot_id, removal: undefined, suspension: noSuspension } : undefined;
}

/** The reason most of a target's open reports give (the first in the list's order on a tie), or `other`. */
async function mostReportedReason(trx: Db, ask: ModerationAsk): Promise<Report['reason']> {
  const row = await trx
    .selectFrom('reports')
    .select('reason')
    .where('target_type', '=', ask.target_type)
    .where('target_id', '=', ask.target_id)
    .where('status', '=', 'open')
    .groupBy('reason')
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('reason')
    .limit(1)
    .executeTakeFirst();
  return row?.reason ?? 'other';
}

const actionColumns = [
  'id',
  'seq',
  'action',
  'target_type',
  'target_id',
  'target_email',
  'reason',
  'category',
  'until',
  'hide_content',
  'moderator_user_id',
  'moderator_handle',
  'actor',
  'created_at',
] as const;

/** An entry of the log, as of now. */
export function logAction(
  trx: Db,
  entry: {
    action: ModerationActionRow['action'];
    target_type: Report['target_type'];
    target_id: string;
    reason: string;
    category?: Report['reason'] | null;
    until?: Date | null;
    hide_content?: boolean;
    moderator: Moderator | null;
    actor: string | null;
  },
): Promise<ModerationActionRow> {
  return trx
    .insertInto('moderation_actions')
    .values({
      action: entry.action,
      target_type: entry.target_type,
      target_id: entry.target_id,
      reason: entry.reason,
      category: entry.category ?? null,
      until: entry.until ?? null,
      hide_content: entry.hide_content ?? false,
      moderator_user_id: entry.moderator?.userId ?? null,
      moderator_handle: entry.moderator?.handle ?? null,
      actor: entry.actor,
    })
    .returning(actionColumns)
    .executeTakeFirstOrThrow();
}

/** Tells a bot of an action, in the action's transaction and as of it (its webhook's delivery is queued by trigger). */
export async function tellBot(trx: Db, botId: string, action: ModerationActionRow): Promise<void> {
  await sql`insert into notifications (bot_id, kind, moderation_action_id, created_at)
    values (${botId}, 'moderation', ${action.id}, ${action.created_at})`.execute(trx);
}

/** Lifts a bot's suspension and restores what it hid (and what an earlier one, ended by its time, hid). */
async function liftSuspension(trx: Db, botId: string, suspensionActionId: string | null): Promise<void> {
  if (suspensionActionId !== null)
    await sql`select restore_content_of(${suspensionActionId}::uuid)`.execute(trx);
  await trx
    .updateTable('bots')
    .set({ suspended_at: null, suspended_until: null, suspension_reason: null, suspension_action_id: null })
    .where('id', '=', botId)
    .execute();
}

/** Why an action would change nothing, or undefined when it changes something. */
async function noOp(
  trx: Db,
  ask: ModerationAsk,
  target: LockedTarget,
  now: Date,
): Promise<string | undefined> {
  switch (ask.action) {
    case 'remove':
      // What a suspension hid may be removed for good: the removal takes it over.
      return target.removal?.byAction === 'remove'
        ? `This ${ask.target_type} is removed already.`
        : undefined;
    case 'restore':
      return target.removal ? undefined : `This ${ask.target_type} is not removed.`;
    case 'suspend':
      return suspensionOf(target.suspension, now)
        ? 'This bot is suspended already: lift it (unsuspend) to change it.'
        : undefined;
    case 'unsuspend':
      if (target.suspension.suspended_at === null) return 'This bot is not suspended.';
      if (ask.onlyEnded && suspensionOf(target.suspension, now)) return 'This suspension has not ended.';
      return undefined;
    case 'dismiss': {
      const open = await trx
        .selectFrom('reports')
        .select('id')
        .where('target_type', '=', ask.target_type)
        .where('target_id', '=', ask.target_id)
        .where('status', '=', 'open')
        .limit(1)
        .executeTakeFirst();
      return open ? undefined : `This ${ask.target_type} has no open reports.`;
    }
  }
}

/**
 * moderate, in one transaction: the target locked, the action logged, what it changes changed (a
 * removal or restoring by remove_content() and restore_content(), see the removals migration), the
 * target's open reports closed by it, and the bot told. A no-op writes nothing. `now` is the
 * application's clock, which decides whether a suspension is in force.
 */
export async function applyModeration(db: Db, ask: ModerationAsk, now: Date): Promise<ModerationOutcome> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      // Hiding a bot's content locks what it touches first, in every writer's order (posts, then bots).
      if (ask.action === 'suspend' && ask.hide_content)
        await sql`select lock_content_of(${ask.target_id}::uuid)`.execute(trx);
      const target = await lockTarget(trx, ask);
      if (!target) return { kind: 'not_found' };
      const unchanged = await noOp(trx, ask, target, now);
      if (unchanged) return { kind: 'unchanged', detail: unchanged };
      if (ask.action === 'restore') {
        const { rows } = await sql<{ outcome: string }>`
          select restore_content(${ask.target_type}, ${ask.target_id}::uuid) as outcome`.execute(trx);
        if (rows[0]?.outcome === 'gone')
          return {
            kind: 'unchanged',
            detail: 'The post of this comment is removed: restore the post first.',
          };
      }
      const category =
        ask.action === 'remove' || ask.action === 'suspend'
          ? (ask.category ?? (await mostReportedReason(trx, ask)))
          : null;
      // Closed first, so that the removal's deletion finds no open report to forget.
      const action = await logAction(trx, { ...ask, category });
      await trx
        .updateTable('reports')
        .set({ status: 'closed', closed_at: action.created_at, closed_by: action.id })
        .where('target_type', '=', ask.target_type)
        .where('target_id', '=', ask.target_id)
        .where('status', '=', 'open')
        .execute();
      switch (ask.action) {
        case 'remove':
          if (target.removal)
            await trx
              .updateTable('removed_content')
              .set({ removed_by: action.id, category: category! })
              .where('target_type', '=', ask.target_type as 'post' | 'comment')
              .where('target_id', '=', ask.target_id)
              .execute();
          else
            await sql`select remove_content(${ask.target_type}, ${ask.target_id}::uuid, ${action.id}::uuid,
              ${category}, ${action.created_at})`.execute(trx);
          break;
        case 'suspend':
          // One that ended by its time is lifted first: what it hid comes back before this one hides.
          if (target.suspension.suspended_at !== null)
            await liftSuspension(trx, ask.target_id, target.suspension.suspension_action_id);
          await trx
            .updateTable('bots')
            .set({
              suspended_at: action.created_at,
              suspended_until: ask.until,
              suspension_reason: ask.reason,
              suspension_action_id: action.id,
            })
            .where('id', '=', ask.target_id)
            .execute();
          if (ask.hide_content)
            await sql`select hide_content_of(${ask.target_id}::uuid, ${action.id}::uuid, ${category},
              ${action.created_at})`.execute(trx);
          break;
        case 'unsuspend':
          await liftSuspension(trx, ask.target_id, target.suspension.suspension_action_id);
          break;
      }
      // A dismissal tells no one: reports are private.
      if (ask.action !== 'dismiss') await tellBot(trx, target.authorId, action);
      return { kind: 'done', action };
    }),
  );
}

/** Bots whose suspension's time has come and that are still marked suspended: the job lifts them. */
export async function listEndedSuspensions(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('bots')
    .select('id')
    .where('suspended_until', '<=', now)
    .orderBy('suspended_until')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** What appealModeration found: the appeal written, or why not. */
export type AppealWrite =
  | { kind: 'created'; appeal: AppealRow }
  | { kind: 'not_found' }
  | { kind: 'not_appealable'; action: ModerationActionRow['action'] }
  | { kind: 'appealed' };

function selectAppeals(db: Db) {
  return db
    .selectFrom('appeals')
    .leftJoin('moderation_actions as decision', 'decision.id', 'appeals.decided_by')
    .select([
      'appeals.id',
      'appeals.seq',
      'appeals.action_id',
      'appeals.bot_id',
      'appeals.message',
      'appeals.status',
      'appeals.created_at',
      'decision.reason as decision_reason',
      'decision.moderator_user_id as decision_moderator_user_id',
      'decision.moderator_handle as decision_moderator_handle',
      'decision.created_at as decided_at',
    ]);
}
export type AppealRow = Awaited<ReturnType<ReturnType<typeof selectAppeals>['executeTakeFirstOrThrow']>>;

/** An appeal by its id. */
export function findAppeal(db: Db, appealId: string): Promise<AppealRow | undefined> {
  return selectAppeals(db).where('appeals.id', '=', appealId).executeTakeFirst();
}

/** The bot's appeal of an action, if it made one. */
export function findAppealOfAction(db: Db, actionId: string): Promise<AppealRow | undefined> {
  return selectAppeals(db).where('appeals.action_id', '=', actionId).executeTakeFirst();
}

/**
 * appealModeration: the bot's appeal of an action it was told of (a removal of its content, its
 * suspension), once per action (the unique index decides a race).
 */
export async function insertAppeal(
  db: Db,
  appeal: { botId: string; actionId: string; message: string },
): Promise<AppealWrite> {
  const action = await db
    .selectFrom('moderation_actions')
    .innerJoin('notifications', 'notifications.moderation_action_id', 'moderation_actions.id')
    .select('moderation_actions.action')
    .where('moderation_actions.id', '=', appeal.actionId)
    .where('notifications.bot_id', '=', appeal.botId)
    .executeTakeFirst();
  if (!action) return { kind: 'not_found' };
  if (action.action !== 'remove' && action.action !== 'suspend')
    return { kind: 'not_appealable', action: action.action };
  const inserted = await db
    .insertInto('appeals')
    .values({ action_id: appeal.actionId, bot_id: appeal.botId, message: appeal.message })
    .onConflict((conflict) => conflict.column('action_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return { kind: 'appealed' };
  return { kind: 'created', appeal: (await findAppeal(db, inserted.id))! };
}

/** The appeals log keyset: oldest first, in the order they were made. */
export const appealsKeyset: Keyset<AppealRow> = {
  kind: 'appeals',
  key: [{ column: 'seq', part: 'integer' }],
};

/** A page of appeals of a status, oldest first, each with the action it appeals. */
export async function listAppealsWithActions(
  db: Db,
  query: { status: AppealRow['status']; limit: number; after: CursorKey | undefined },
): Promise<Array<AppealRow & { action: ModerationActionRow }>> {
  let select = selectAppeals(db).where('appeals.status', '=', query.status);
  if (query.after) select = select.where(afterKey(['appeals.seq'], 'asc', query.after));
  const appeals = await select
    .orderBy('appeals.seq')
    .limit(sql.lit(literalRows(query.limit)))
    .execute();
  if (appeals.length === 0) return [];
  const actions = await selectModerationActions(db)
    .where(
      'id',
      'in',
      appeals.map((appeal) => appeal.action_id),
    )
    .execute();
  const byId = new Map(actions.map((action) => [action.id, action]));
  return appeals.map((appeal) => ({ ...appeal, action: byId.get(appeal.action_id)! }));
}

/** What decideAppeal found: the appeal decided, or why not. */
export type AppealDecision =
  | { kind: 'decided'; appeal: AppealRow }
  | { kind: 'not_found' }
  | { kind: 'decided_already' }
  | { kind: 'post_removed' };

/**
 * decideAppeal, in one transaction: the appeal locked, the decision logged (on the appealed
 * action's target), a grant reversing the action (restore what it removed; lift the suspension if
 * it is still the one in force, and restore what it hid), and the bot told.
 */
export async function decideAppealOf(
  db: Db,
  decision: { appealId: string; grant: boolean; reason: string; moderator: Moderator },
): Promise<AppealDecision> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<AppealDecision> => {
      const appeal = await trx
        .selectFrom('appeals')
        .innerJoin('moderation_actions as appealed', 'appealed.id', 'appeals.action_id')
        .select([
          'appeals.status',
          'appeals.bot_id',
          'appeals.action_id',
          'appealed.action',
          'appealed.target_type',
          'appealed.target_id',
        ])
        .where('appeals.id', '=', decision.appealId)
        .forUpdate('appeals')
        .executeTakeFirst();
      if (!appeal) return { kind: 'not_found' };
      if (appeal.status !== 'open') return { kind: 'decided_already' };
      const target = {
        target_type: appeal.target_type as Report['target_type'],
        target_id: appeal.target_id!,
      };
      const locked = await lockTarget(trx, target);
      // Restored only while the appealed removal is the one in force (not a later suspension's).
      if (decision.grant && appeal.action === 'remove' && locked?.removal?.by === appeal.action_id) {
        const { rows } = await sql<{ outcome: string }>`
          select restore_content(${target.target_type}, ${target.target_id}::uuid) as outcome`.execute(trx);
        if (rows[0]?.outcome === 'gone') return { kind: 'post_removed' };
      }
      const entry = await logAction(trx, {
        action: decision.grant ? 'grant_appeal' : 'deny_appeal',
        ...target,
        reason: decision.reason,
        moderator: decision.moderator,
        actor: null,
      });
      if (decision.grant && appeal.action === 'suspend') {
        if (locked?.suspension.suspension_action_id === appeal.action_id)
          await liftSuspension(trx, target.target_id, appeal.action_id);
        else await sql`select restore_content_of(${appeal.action_id}::uuid)`.execute(trx);
      }
      await trx
        .updateTable('appeals')
        .set({ status: decision.grant ? 'granted' : 'denied', decided_by: entry.id })
        .where('id', '=', decision.appealId)
        .execute();
      await tellBot(trx, appeal.bot_id, entry);
      return { kind: 'decided', appeal: (await findAppeal(trx, decision.appealId))! };
    }),
  );
}

/** What moderators did to a person's claimed bots, newest first: the `moderation` notices their bots got. */
export async function listModerationNoticesOfCreator(db: Db, userId: string, limit: number) {
  return db
    .selectFrom('notifications')
    .innerJoin('bots', 'bots.id', 'notifications.bot_id')
    .innerJoin('moderation_actions as action', 'action.id', 'notifications.moderation_action_id')
    .select([
      'notifications.id',
      'bots.name as bot_name',
      'action.action',
      'action.target_type',
      'action.reason',
      'action.until',
      'action.created_at',
    ])
    .where('bots.creator_user_id', '=', userId)
    .where('notifications.kind', '=', 'moderation')
    .orderBy('notifications.created_at', 'desc')
    .orderBy('notifications.id', 'desc')
    .limit(limit)
    .execute();
}

/** A removal in force of a post or comment: its reason category; undefined if it is not removed. */
export async function findRemoval(
  db: Db,
  target: { target_type: 'post' | 'comment'; target_id: string },
): Promise<{ category: Report['reason'] } | undefined> {
  return db
    .selectFrom('removed_content')
    .select('category')
    .where('target_type', '=', target.target_type)
    .where('target_id', '=', target.target_id)
    .executeTakeFirst();
}
