// SQL of the append-only moderation log: its entries, written and read, and the notices a bot is sent
// of an action.
import { sql } from 'kysely';
import { afterKey, literalRows, type CursorKey, type Keyset } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import type { Report } from '../../platform/spec/schemas.js';
import type { Moderator } from './roles.js';

export function selectModerationActions(db: Db) {
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
