// The moderation log as the API shows it: one entry's shape, and listModerationActions' pages.
import { keysetPage, type Page } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { validationFailed } from '../../platform/spec/problems.js';
import type { ModerationAction } from '../../platform/spec/schemas.js';
import { listModerationLog, moderationLogKeyset, type ModerationActionRow } from '../repository/log.js';

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
    moderator:
      row.moderator_user_id === null ? null : { handle: row.moderator_handle, name: row.moderator_name },
    actor: row.actor,
    created_at: row.created_at.toISOString(),
    target_name: row.target_name,
    target_path: row.target_path,
    scope: row.community_name === null ? null : { community: row.community_name },
    moderator_bot:
      row.moderator_bot_id === null ? null : { id: row.moderator_bot_id, name: row.moderator_bot_name! },
  };
}

/** listModerationActions: a page of the log, newest first; `target_id` needs its `target_type`. */
export function listModerationActions(
  db: Db,
  query: {
    targetType: ModerationAction['target_type'] | undefined;
    targetId: string | undefined;
    action?: ModerationAction['action'] | undefined;
    moderator?: string | undefined;
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
      listModerationLog(db, {
        targetType: query.targetType,
        targetId: query.targetId,
        action: query.action,
        moderator: query.moderator,
        limit,
        after,
      }),
    toModerationAction,
  );
}
