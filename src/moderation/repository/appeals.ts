// SQL of appeals: a bot's appeal of an action against it, the lists moderators read, and the rows a
// decision writes (what it means is ../service/appeals.ts).
import { sql } from 'kysely';
import { afterKey, literalRows, type CursorKey, type Keyset } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { type ModerationActionRow, selectModerationActions } from './log.js';

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

/** An appeal locked for its decision, with the action it appeals. */
export function lockAppeal(trx: Db, appealId: string) {
  return trx
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
    .where('appeals.id', '=', appealId)
    .forUpdate('appeals')
    .executeTakeFirst();
}

/** An appeal granted or denied by its decision's log entry. */
export async function setAppealDecision(
  trx: Db,
  appealId: string,
  status: 'granted' | 'denied',
  decidedBy: string,
): Promise<void> {
  await trx
    .updateTable('appeals')
    .set({ status, decided_by: decidedBy })
    .where('id', '=', appealId)
    .execute();
}

/** The community ban a log entry made, lifted. */
export async function deleteBanOf(trx: Db, actionId: string): Promise<void> {
  await trx.deleteFrom('community_bans').where('action_id', '=', actionId).execute();
}
