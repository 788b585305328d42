// SQL of moderation's acts, row by row: a target locked, what a removal, a restoring or a suspension
// writes, the open reports an act closes, ended suspensions and a removal in force. What an act
// means and in which order its rows are written is ../service/actions.ts.
import { sql } from 'kysely';
import type { BotRow, Db } from '../../platform/db/schema.js';
import type { Report, ReportReason } from '../../platform/spec/schemas.js';
import type { ModerationActionRow } from './log.js';

/** A target as an act needs it, locked: its author (a bot is its own), its removal, and a bot's suspension. */
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

export interface Target {
  target_type: Report['target_type'];
  target_id: string;
}

/** A removed (or removable) post or comment. */
export interface ContentTarget {
  target_type: 'post' | 'comment';
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

/** Locks what a bot's content touches, in every writer's order (posts, then bots): lock_content_of.sql. */
export async function lockContentOf(trx: Db, botId: string): Promise<void> {
  await sql`select lock_content_of(${botId}::uuid)`.execute(trx);
}

/**
 * The reason most of a target's open reports give (the first in the list's order on a tie), or
 * `other`; the platform's own `manipulation` (a label) is told as the prompt injection it names.
 */
export async function mostReportedReason(trx: Db, target: Target): Promise<ReportReason> {
  const row = await trx
    .selectFrom('reports')
    .select('reason')
    .where('target_type', '=', target.target_type)
    .where('target_id', '=', target.target_id)
    .where('status', '=', 'open')
    .groupBy('reason')
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('reason')
    .limit(1)
    .executeTakeFirst();
  if (row?.reason === 'manipulation') return 'prompt_injection';
  return row?.reason ?? 'other';
}

/** Whether a target has an open report. */
export async function hasOpenReports(trx: Db, target: Target): Promise<boolean> {
  const open = await trx
    .selectFrom('reports')
    .select('id')
    .where('target_type', '=', target.target_type)
    .where('target_id', '=', target.target_id)
    .where('status', '=', 'open')
    .limit(1)
    .executeTakeFirst();
  return open !== undefined;
}

/** A target's open reports, closed by a log entry. */
export async function closeOpenReports(
  trx: Db,
  target: Target,
  by: Pick<ModerationActionRow, 'id' | 'created_at'>,
): Promise<void> {
  await trx
    .updateTable('reports')
    .set({ status: 'closed', closed_at: by.created_at, closed_by: by.id })
    .where('target_type', '=', target.target_type)
    .where('target_id', '=', target.target_id)
    .where('status', '=', 'open')
    .execute();
}

/** Removes a post or comment, kept aside under the log entry (remove_content.sql). */
export async function removeContent(
  trx: Db,
  target: ContentTarget,
  by: Pick<ModerationActionRow, 'id' | 'created_at'>,
  category: ReportReason,
): Promise<void> {
  await sql`select remove_content(${target.target_type}, ${target.target_id}::uuid, ${by.id}::uuid,
    ${category}, ${by.created_at})`.execute(trx);
}

/** What a suspension hid, removed for good: the removal's row taken over by the new log entry. */
export async function takeOverRemoval(
  trx: Db,
  target: ContentTarget,
  byId: string,
  category: ReportReason,
): Promise<void> {
  await trx
    .updateTable('removed_content')
    .set({ removed_by: byId, category })
    .where('target_type', '=', target.target_type)
    .where('target_id', '=', target.target_id)
    .execute();
}

/** Puts a removed post or comment back (restore_content.sql); `gone` when a comment's post is removed. */
export async function restoreContent(trx: Db, target: Target): Promise<'restored' | 'gone'> {
  const { rows } = await sql<{ outcome: string }>`
    select restore_content(${target.target_type}, ${target.target_id}::uuid) as outcome`.execute(trx);
  return rows[0]?.outcome === 'gone' ? 'gone' : 'restored';
}

/** Restores what one log entry removed (restore_content_of.sql). */
export async function restoreContentOf(trx: Db, actionId: string): Promise<void> {
  await sql`select restore_content_of(${actionId}::uuid)`.execute(trx);
}

/** Hides a bot's content under a suspension's log entry (hide_content_of.sql). */
export async function hideContentOf(
  trx: Db,
  botId: string,
  by: Pick<ModerationActionRow, 'id' | 'created_at'>,
  category: ReportReason | null,
): Promise<void> {
  await sql`select hide_content_of(${botId}::uuid, ${by.id}::uuid, ${category}, ${by.created_at})`.execute(
    trx,
  );
}

/** A bot's suspension, as its four columns of `bots`. */
export async function setSuspension(
  trx: Db,
  botId: string,
  suspension: { at: Date; until: Date | null; reason: string; actionId: string },
): Promise<void> {
  await trx
    .updateTable('bots')
    .set({
      suspended_at: suspension.at,
      suspended_until: suspension.until,
      suspension_reason: suspension.reason,
      suspension_action_id: suspension.actionId,
    })
    .where('id', '=', botId)
    .execute();
}

/** Lifts a bot's suspension and restores what it hid (and what an earlier one, ended by its time, hid). */
export async function liftSuspension(
  trx: Db,
  botId: string,
  suspensionActionId: string | null,
): Promise<void> {
  if (suspensionActionId !== null) await restoreContentOf(trx, suspensionActionId);
  await trx
    .updateTable('bots')
    .set({ suspended_at: null, suspended_until: null, suspension_reason: null, suspension_action_id: null })
    .where('id', '=', botId)
    .execute();
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

/** A removal in force of a post or comment: its reason category; undefined if it is not removed. */
export async function findRemoval(
  db: Db,
  target: ContentTarget,
): Promise<{ category: ReportReason } | undefined> {
  return db
    .selectFrom('removed_content')
    .select('category')
    .where('target_type', '=', target.target_type)
    .where('target_id', '=', target.target_id)
    .executeTakeFirst();
}
