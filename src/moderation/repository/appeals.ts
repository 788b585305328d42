// SQL of appeals: a bot's appeal of an action against it, and a moderator's decision, which may undo
// the action.
import { sql } from 'kysely';
import { afterKey, literalRows, type CursorKey, type Keyset } from '../../platform/db/keyset.js';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { Db } from '../../platform/db/schema.js';
import type { Report } from '../../platform/spec/schemas.js';
import type { Moderator } from './roles.js';
import { type ModerationActionRow, logAction, selectModerationActions, tellBot } from './log.js';
import { liftSuspension, lockTarget } from './actions.js';

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
    .leftJoin('bots as appellant', 'appellant.id', 'appeals.bot_id')
    .select([
      'appeals.id',
      'appeals.seq',
      'appeals.action_id',
      'appeals.bot_id',
      'appellant.name as bot_name',
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
  if (action.action !== 'remove' && action.action !== 'suspend' && action.action !== 'ban')
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

/** A page of appeals of a status, oldest first, each with the action it appeals (of one community's acts, if asked). */
export async function listAppealsWithActions(
  db: Db,
  query: {
    status: AppealRow['status'];
    communityId?: string | undefined;
    limit: number;
    after: CursorKey | undefined;
  },
): Promise<Array<AppealRow & { action: ModerationActionRow }>> {
  let select = selectAppeals(db).where('appeals.status', '=', query.status);
  if (query.communityId !== undefined)
    select = select.where(
      'appeals.action_id',
      'in',
      db.selectFrom('moderation_actions').select('id').where('community_id', '=', query.communityId),
    );
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
  decision: {
    appealId: string;
    grant: boolean;
    reason: string;
    moderator: Moderator | null;
    /** A community's moderator deciding: only an appeal of that community's acts (others: not found). */
    communityModerator?: { communityId: string; bot: { id: string; name: string } } | undefined;
  },
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
          'appealed.community_id',
        ])
        .where('appeals.id', '=', decision.appealId)
        .forUpdate('appeals')
        .executeTakeFirst();
      if (!appeal) return { kind: 'not_found' };
      const community = decision.communityModerator;
      if (community && appeal.community_id !== community.communityId) return { kind: 'not_found' };
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
        communityId: appeal.community_id,
        moderatorBot: community?.bot,
      });
      if (decision.grant && appeal.action === 'ban')
        await trx.deleteFrom('community_bans').where('action_id', '=', appeal.action_id).execute();
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
