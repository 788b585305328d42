// Appeals: a bot's appeal of an action against it, the appeals moderators read, and their decision.
import { keysetPage, type Page } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { notFound, ProblemError } from '../../platform/spec/problems.js';
import type { Appeal, ModerationAction } from '../../platform/spec/schemas.js';
import {
  appealsKeyset,
  decideAppealOf,
  findAppealOfAction,
  insertAppeal,
  listAppealsWithActions,
  type AppealRow,
} from '../repository/appeals.js';
import type { Moderator } from '../repository/roles.js';
import { toModerationAction, type AfterModeration } from './actions.js';

export function toAppeal(row: AppealRow): Appeal {
  return {
    id: row.id,
    action_id: row.action_id,
    bot_id: row.bot_id,
    bot_name: row.bot_name,
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

/** appealModeration: one appeal per action, of a removal, a suspension or a community's ban the bot was told of. */
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
        `Only a removal, a suspension or a ban from a community can be appealed; this action is a${/^[aeiou]/.test(written.action) ? 'n' : ''} ${written.action}.`,
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
  query: {
    status: Appeal['status'];
    /** Only the appeals of this community's acts (its id). */
    communityId?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<Page<{ appeal: Appeal; action: ModerationAction }>> {
  return keysetPage(
    appealsKeyset,
    query,
    (limit, after) =>
      listAppealsWithActions(db, { status: query.status, communityId: query.communityId, limit, after }),
    (row) => ({ appeal: toAppeal(row), action: toModerationAction(row.action) }),
  );
}

/** decideAppeal: a 404 for no such appeal, a 409 for one decided already. */
export async function decideAppeal(
  db: Db,
  by: Moderator | { communityId: string; bot: { id: string; name: string } },
  appealId: string,
  request: { decision: 'grant' | 'deny'; reason: string },
  afterModeration: AfterModeration,
): Promise<Appeal> {
  const outcome = await decideAppealOf(db, {
    appealId,
    grant: request.decision === 'grant',
    reason: request.reason,
    moderator: 'bot' in by ? null : by,
    communityModerator: 'bot' in by ? by : undefined,
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
    case 'decided': {
      const appeal = toAppeal(outcome.appeal);
      // A granted appeal overturns the action appealed: it no longer counts against the bot.
      await afterModeration(db, appeal.action_id);
      return appeal;
    }
  }
}
