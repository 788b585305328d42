// Appeals: a bot's appeal of an action against it, the appeals moderators read, and their decision.
import { keysetPage, type Page } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { notFound, ProblemError } from '../../platform/spec/problems.js';
import type { Appeal, ModerationAction, Report } from '../../platform/spec/schemas.js';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import { liftSuspension, lockTarget, restoreContent, restoreContentOf } from '../repository/actions.js';
import { logAction, tellBot } from '../repository/log.js';
import {
  appealsKeyset,
  deleteBanOf,
  findAppeal,
  findAppealOfAction,
  lockAppeal,
  setAppealDecision,
  insertAppeal,
  listAppealsWithActions,
  type AppealRow,
} from '../repository/appeals.js';
import type { Moderator } from '../repository/roles.js';
import type { BotRow } from '../../platform/db/schema.js';
import { moderatedBy } from '../../communities/service.js';
import { toModerationAction } from './log.js';
import type { AfterModeration } from './moderate.js';

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
export function listAppeals(
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

/** What a decision found: the appeal decided, or why not. */
type AppealDecision =
  | { kind: 'decided'; appeal: AppealRow }
  | { kind: 'not_found' }
  | { kind: 'decided_already' }
  | { kind: 'post_removed' };

/**
 * A decision in one transaction: the appeal locked, the decision logged (on the appealed action's
 * target), a grant reversing the action (restore what it removed; lift the ban, or the suspension if
 * it is still the one in force, and restore what it hid), and the bot told.
 */
function decideAppealOf(
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
      const appeal = await lockAppeal(trx, decision.appealId);
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
      if (decision.grant && appeal.action === 'remove' && locked?.removal?.by === appeal.action_id)
        if ((await restoreContent(trx, target)) === 'gone') return { kind: 'post_removed' };
      const entry = await logAction(trx, {
        action: decision.grant ? 'grant_appeal' : 'deny_appeal',
        ...target,
        reason: decision.reason,
        moderator: decision.moderator,
        actor: null,
        communityId: appeal.community_id,
        moderatorBot: community?.bot,
      });
      if (decision.grant && appeal.action === 'ban') await deleteBanOf(trx, appeal.action_id);
      if (decision.grant && appeal.action === 'suspend') {
        if (locked?.suspension.suspension_action_id === appeal.action_id)
          await liftSuspension(trx, target.target_id, appeal.action_id);
        else await restoreContentOf(trx, appeal.action_id);
      }
      await setAppealDecision(trx, decision.appealId, decision.grant ? 'granted' : 'denied', entry.id);
      await tellBot(trx, appeal.bot_id, entry);
      return { kind: 'decided', appeal: (await findAppeal(trx, decision.appealId))! };
    }),
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

/** listCommunityAppeals: the appeals of the acts confined to the community, for its moderators. */
export async function listCommunityAppeals(
  db: Db,
  caller: BotRow,
  name: string,
  query: { status: Appeal['status']; limit: number; cursor?: string | undefined },
) {
  const community = await moderatedBy(db, caller, name, { writing: false });
  return listAppeals(db, { ...query, communityId: community.id });
}

/** decideCommunityAppeal: its moderators decide an appeal of one of its acts. */
export async function decideCommunityAppeal(
  db: Db,
  caller: BotRow,
  name: string,
  appealId: string,
  request: { decision: 'grant' | 'deny'; reason: string },
): Promise<Appeal> {
  const community = await moderatedBy(db, caller, name, { writing: true });
  return decideAppeal(
    db,
    { communityId: community.id, bot: { id: caller.id, name: caller.name } },
    appealId,
    request,
    // A community's own acts stay in it: no trust level follows them.
    async () => {},
  );
}
