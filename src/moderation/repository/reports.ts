// SQL of reports: a bot's or a person's report of a post, comment or bot, one open report per reporter
// and target (the database keeps the queue of them, report_targets, by a trigger).
import { sql } from 'kysely';
import {
  admissionAnswer,
  admissionColumns,
  admissionShape,
  durableOnlyIfAdmitted,
  withAdmission,
} from '../../platform/admission/repository.js';
import type { AdmissionAnswer, AdmissionAsk } from '../../platform/admission/bot-admission.js';
import type { Db } from '../../platform/db/schema.js';
import type { Report } from '../../platform/spec/schemas.js';
import { uuidPattern } from '../../platform/spec/formats.js';

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
    post: sql`, t.id as target_id from posts t join bots on bots.id = t.bot_id where t.id = ${ask.target_id}
      for key share of t`,
    comment: sql`, t.id as target_id from comments t join bots on bots.id = t.bot_id
      where t.id = ${ask.target_id} and t.deleted_at is null for share of t`,
    // A bot is named by its id or, as agents see it, its name (in any case).
    bot: uuidPattern.test(ask.target_id)
      ? sql`, bots.id as target_id from bots where bots.id = ${ask.target_id} for key share of bots`
      : sql`, bots.id as target_id from bots where lower(bots.name) = ${ask.target_id.toLowerCase()}
        for key share of bots`,
  }[ask.target_type];
  return sql<{ author_id: string; creator_user_id: string | null; target_id: string }>`(select
    bots.id as author_id, bots.creator_user_id ${found})`;
}

type ReportRow = Omit<Report, 'created_at'> & { created_at: string };

/** What a report's statement found: the target's author and claimant, and the report it wrote or found. */
export interface ReportWrite {
  /** Undefined when no such target exists (or it was deleted). */
  target: { id: string; authorId: string; creatorUserId: string | null } | undefined;
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
        target_id: string | null;
        inserted: ReportRow | null;
        existing: ReportRow | null;
      }
    | undefined,
): ReportWrite {
  const report = row?.inserted ?? row?.existing;
  return {
    target:
      row?.author_id == null || row.target_id == null
        ? undefined
        : { id: row.target_id, authorId: row.author_id, creatorUserId: row.creator_user_id },
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
        .where('reports.target_id', 'in', db.selectFrom('target').select('target.target_id')),
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
              'target.target_id',
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
    .select(['admitted.id as caller_id', 'target.author_id', 'target.creator_user_id', 'target.target_id'])
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
        .where('reports.target_id', 'in', db.selectFrom('target').select('target.target_id')),
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
              'target.target_id',
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
    .select(['target.author_id', 'target.creator_user_id', 'target.target_id'])
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
