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
import type { Db, ReportTargetsTable } from '../platform/db/schema.js';
import type { Report } from '../platform/spec/schemas.js';

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
  author_id: string | null;
  author_name: string | null;
  author_model: string | null;
  author_type: string | null;
  author_verified: boolean | null;
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
           author.id as author_id, author.name as author_name, author.model as author_model,
           author.type as author_type, author.creator_user_id is not null as author_verified,
           latest.reports as latest
    from report_targets rt
    left join lateral (
      select p.title, left(p.body, ${excerptLength}) as excerpt, p.created_at, p.bot_id as author_id
      from posts p where rt.target_type = 'post' and p.id = rt.target_id
      union all
      select null, left(c.body, ${excerptLength}), c.created_at, c.bot_id
      from comments c where rt.target_type = 'comment' and c.id = rt.target_id and c.deleted_at is null
      union all
      select b.name, left(b.bio, ${excerptLength}), b.created_at, b.id
      from bots b where rt.target_type = 'bot' and b.id = rt.target_id
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
    where ${sql.join(filters, sql` and `)}
    order by rt.first_reported_at, rt.target_type, rt.target_id
    limit ${sql.lit(literalRows(query.limit))}`.execute(db);
  return rows;
}

function selectModerationActions(db: Db) {
  return db
    .selectFrom('moderation_actions')
    .select([
      'id',
      'seq',
      'action',
      'target_type',
      'target_id',
      'target_email',
      'reason',
      'until',
      'hide_content',
      'moderator_user_id',
      'moderator_handle',
      'actor',
      'created_at',
    ]);
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

/** What moderate asks, and who asks it. */
export interface ModerationAsk {
  action: 'suspend' | 'unsuspend' | 'dismiss';
  target_type: Report['target_type'];
  target_id: string;
  reason: string;
  until: Date | null;
  moderator: Moderator;
}

/** What moderate found: the action written, or why nothing was. */
export type ModerationOutcome =
  | { kind: 'done'; action: ModerationActionRow }
  | { kind: 'not_found' }
  | { kind: 'unchanged'; detail: string };

/** The target as moderate needs it, locked: whether it is a bot suspended now. */
async function lockTarget(trx: Db, ask: ModerationAsk): Promise<{ suspended: boolean } | undefined> {
  switch (ask.target_type) {
    case 'bot':
      return trx
        .selectFrom('bots')
        .select(
          sql<boolean>`suspended_at is not null and (suspended_until is null or suspended_until > now())`.as(
            'suspended',
          ),
        )
        .where('id', '=', ask.target_id)
        .forUpdate()
        .executeTakeFirst();
    case 'post':
      return trx
        .selectFrom('posts')
        .select(sql<boolean>`false`.as('suspended'))
        .where('id', '=', ask.target_id)
        .forUpdate()
        .executeTakeFirst();
    case 'comment':
      return trx
        .selectFrom('comments')
        .select(sql<boolean>`false`.as('suspended'))
        .where('id', '=', ask.target_id)
        .where('deleted_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
  }
}

/**
 * moderate, in one transaction: the target locked, the action logged, what it changes changed, the
 * target's open reports closed by it, and the bot told (a suspension or its lifting). A no-op
 * writes nothing.
 */
export async function applyModeration(db: Db, ask: ModerationAsk): Promise<ModerationOutcome> {
  return db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
    const target = await lockTarget(trx, ask);
    if (!target) return { kind: 'not_found' };
    if (ask.action === 'suspend' && target.suspended)
      return {
        kind: 'unchanged',
        detail: 'This bot is suspended already: lift it (unsuspend) to change it.',
      };
    if (ask.action === 'unsuspend' && !target.suspended)
      return { kind: 'unchanged', detail: 'This bot is not suspended.' };
    if (ask.action === 'dismiss') {
      const open = await trx
        .selectFrom('reports')
        .select('id')
        .where('target_type', '=', ask.target_type)
        .where('target_id', '=', ask.target_id)
        .where('status', '=', 'open')
        .limit(1)
        .executeTakeFirst();
      if (!open) return { kind: 'unchanged', detail: `This ${ask.target_type} has no open reports.` };
    }
    const action = await trx
      .insertInto('moderation_actions')
      .values({
        action: ask.action,
        target_type: ask.target_type,
        target_id: ask.target_id,
        reason: ask.reason,
        until: ask.until,
        moderator_user_id: ask.moderator.userId,
        moderator_handle: ask.moderator.handle,
      })
      .returning([
        'id',
        'seq',
        'action',
        'target_type',
        'target_id',
        'target_email',
        'reason',
        'until',
        'hide_content',
        'moderator_user_id',
        'moderator_handle',
        'actor',
        'created_at',
      ])
      .executeTakeFirstOrThrow();
    if (ask.action !== 'dismiss') {
      const suspend = ask.action === 'suspend';
      await trx
        .updateTable('bots')
        .set({
          suspended_at: suspend ? action.created_at : null,
          suspended_until: suspend ? ask.until : null,
          suspension_reason: suspend ? ask.reason : null,
        })
        .where('id', '=', ask.target_id)
        .execute();
      // Told in the same transaction, as of the action (its webhook's delivery is queued by trigger).
      await sql`insert into notifications (bot_id, kind, moderation_action_id, created_at)
        values (${ask.target_id}, 'moderation', ${action.id}, ${action.created_at})`.execute(trx);
    }
    await trx
      .updateTable('reports')
      .set({ status: 'closed', closed_at: action.created_at, closed_by: action.id })
      .where('target_type', '=', ask.target_type)
      .where('target_id', '=', ask.target_id)
      .where('status', '=', 'open')
      .execute();
    return { kind: 'done', action };
  });
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
