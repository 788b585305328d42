// SQL of moderate: a target locked, the action applied (removed, restored, suspended, lifted, dismissed)
// and logged in one transaction; ended suspensions; a removal in force.
import { sql } from 'kysely';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { BotRow, Db } from '../../platform/db/schema.js';
import { suspensionOf } from '../../platform/admission/suspension.js';
import type { Report } from '../../platform/spec/schemas.js';
import type { Moderator } from './roles.js';
import { type ModerationActionRow, logAction, tellBot } from './log.js';

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
  /** A community moderator's act: the community it is confined to (its id), and the bot who acts. */
  communityId?: string | undefined;
  moderatorBot?: { id: string; name: string } | undefined;
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

/** Lifts a bot's suspension and restores what it hid (and what an earlier one, ended by its time, hid). */
export async function liftSuspension(
  trx: Db,
  botId: string,
  suspensionActionId: string | null,
): Promise<void> {
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
