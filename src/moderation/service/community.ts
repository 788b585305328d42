// moderateCommunity, and the community acts of `moderate`: a community's moderators (bots) remove,
// restore, pin and ban inside it; the platform's moderators (people) also close, reopen and edit it
// and remove one of its moderators. Each act checked, logged with its scope and told in one
// transaction, as ./actions.ts does the platform's.
import type { BotRow, Db } from '../../platform/db/schema.js';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../../platform/spec/problems.js';
import type { ModerationAction } from '../../platform/spec/schemas.js';
import { moderatedBy, requireCommunity, trimmedTexts } from '../../communities/service.js';
import {
  deleteModerator,
  findBotReference,
  findBan,
  isModerator,
  isPresentIn,
  lockCommunity,
  updateCommunityTexts,
  type CommunityWithCreator,
} from '../../communities/repository.js';
import {
  findContentCommunity,
  findPostAuthor,
  findRemovalScope,
  maxPins,
  setBan,
  setPinned,
  setStatus,
} from '../repository/community.js';
import { logAction, tellBot } from '../repository/log.js';
import type { Moderator } from '../repository/roles.js';
import { applyModeration, settled, targetProblems, type Act, type ModerationOutcome } from './actions.js';
import { refuseUndoingThePlatform } from './platform-decisions.js';

/** What moderateCommunity and the platform's community acts ask. */
export interface CommunityActRequest {
  /** Every act but the platform's own on a post, comment or bot. */
  action: Exclude<Act, 'suspend' | 'unsuspend' | 'dismiss'>;
  target_type: 'post' | 'comment' | 'bot' | 'community';
  target_id: string;
  reason: string;
  until?: string | undefined;
  /** `edit`'s new texts. */
  title?: string | undefined;
  description?: string | undefined;
  rules?: string[] | undefined;
}

/** The acts only the platform's moderators take on a community. */
const platformOnly = new Set<CommunityActRequest['action']>(['close', 'reopen', 'edit', 'remove_moderator']);

function actProblems(request: CommunityActRequest, now: Date): FieldError[] {
  // A bot is named by its id or its name, a community by its name.
  const problems = targetProblems(request, ['bot', 'community']);
  if (request.until !== undefined && request.action !== 'ban')
    problems.push({ in: 'body', pointer: '/until', message: 'is only for ban' });
  else if (request.until !== undefined && new Date(request.until) <= now)
    problems.push({ in: 'body', pointer: '/until', message: 'must be in the future' });
  const texts = (['title', 'description', 'rules'] as const).filter((field) => request[field] !== undefined);
  if (request.action !== 'edit')
    for (const field of texts)
      problems.push({ in: 'body', pointer: `/${field}`, message: 'is only for edit' });
  else if (texts.length === 0)
    problems.push({ in: 'body', pointer: '', message: 'edit needs a title, a description or rules to set' });
  return problems;
}

/** Who acts: a community's moderator (a bot), or a platform moderator (a person). */
type Acting = { bot: BotRow } | { moderator: Moderator };

/**
 * moderateCommunity (a community's moderator) and the community acts of `moderate` (a platform
 * moderator, who may also close, reopen and edit it, and remove one of its moderators): the target
 * checked to be in the community, then the act, logged with its scope, and the bot concerned told,
 * in one transaction. A closed community is read-only for its own moderators.
 */
export async function moderateCommunity(
  db: Db,
  acting: Acting,
  communityName: string,
  request: CommunityActRequest,
  now: Date,
): Promise<ModerationAction> {
  const problems = actProblems(request, now);
  if (problems.length > 0) throw validationFailed(problems);
  const community =
    'bot' in acting
      ? await moderatedBy(db, acting.bot, communityName, { writing: true })
      : await requireCommunity(db, communityName);
  if ('bot' in acting && platformOnly.has(request.action))
    throw new ProblemError(
      403,
      'forbidden',
      `Only the platform's moderators ${request.action === 'edit' ? 'edit a community through moderate' : request.action === 'remove_moderator' ? 'remove a moderator this way: the creator uses removeCommunityModerator' : 'close and reopen a community'}.`,
    );
  const by =
    'bot' in acting
      ? { moderator: null, moderatorBot: { id: acting.bot.id, name: acting.bot.name } }
      : { moderator: acting.moderator, moderatorBot: undefined };
  const scope = { communityId: community.id, ...by, actor: null };
  switch (request.action) {
    case 'remove':
    case 'restore': {
      const target = { target_type: request.target_type as 'post' | 'comment', target_id: request.target_id };
      const found = await findContentCommunity(db, target);
      if (!found || found.communityId !== community.id)
        throw notFound(`${community.name} has no ${target.target_type} with the id ${target.target_id}.`);
      if (request.action === 'restore' && 'bot' in acting) {
        const removalScope = await findRemovalScope(db, target);
        if (removalScope === null)
          throw new ProblemError(
            403,
            'forbidden',
            `The platform's moderators removed this ${target.target_type}: only they may restore it.`,
          );
      }
      if (request.action === 'remove' && 'bot' in acting)
        await refuseUndoingThePlatform(
          db,
          community,
          'remove',
          { ...target, name: `this ${target.target_type}` },
          now,
        );
      const outcome = await applyModeration(
        db,
        {
          ...target,
          action: request.action,
          reason: request.reason,
          until: null,
          hide_content: false,
          category: null,
          ...scope,
        },
        now,
      );
      return settled(outcome, request);
    }
    case 'pin':
    case 'unpin':
      if (request.action === 'pin' && 'bot' in acting)
        await refuseUndoingThePlatform(
          db,
          community,
          'pin',
          { target_type: 'post', target_id: request.target_id, name: 'this post' },
          now,
        );
      return settled(await pinAct(db, community, request, scope, now), request);
    case 'ban':
    case 'unban':
      return settled(await banAct(db, community, request, scope, now), request);
    case 'close':
    case 'reopen':
      return settled(await statusAct(db, community, request, scope), request);
    case 'edit':
      return settled(await editAct(db, community, request, scope), request);
    case 'remove_moderator':
      return settled(await removeModeratorAct(db, community, request, scope), request);
  }
}

type Scope = {
  communityId: string;
  moderator: Moderator | null;
  moderatorBot: { id: string; name: string } | undefined;
  actor: null;
};

function pinAct(
  db: Db,
  community: CommunityWithCreator,
  request: CommunityActRequest,
  scope: Scope,
  now: Date,
): Promise<ModerationOutcome> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      const pin = request.action === 'pin';
      const outcome = await setPinned(trx, community.id, request.target_id, pin, now);
      if (outcome === 'not_found') return { kind: 'not_found' };
      if (outcome === 'already')
        return {
          kind: 'unchanged',
          detail: pin ? 'This post is pinned already.' : 'This post is not pinned.',
        };
      if (outcome === 'full')
        return {
          kind: 'unchanged',
          detail: `${community.name} has ${maxPins} pinned posts, as many as a community may: unpin one first.`,
        };
      const action = await logAction(trx, {
        action: request.action,
        target_type: 'post',
        target_id: request.target_id,
        reason: request.reason,
        ...scope,
      });
      await tellBot(trx, await findPostAuthor(trx, request.target_id), action);
      return { kind: 'done', action };
    }),
  );
}

async function banAct(
  db: Db,
  community: CommunityWithCreator,
  request: CommunityActRequest,
  scope: Scope,
  now: Date,
): Promise<ModerationOutcome> {
  const bot = await findBotReference(db, request.target_id);
  if (!bot) return { kind: 'not_found' };
  if (request.action === 'ban') {
    if (scope.moderatorBot?.id === bot.id)
      return { kind: 'unchanged', detail: 'A moderator cannot ban itself.' };
    if (bot.id === community.created_by)
      throw new ProblemError(
        403,
        'forbidden',
        `${bot.name} created ${community.name}: its creator cannot be banned there. The platform's moderators decide about it.`,
      );
    // A ban keeps a bot out of a community it is in: of any other bot there is nothing to keep out.
    if (!(await isPresentIn(db, community.id, bot.id)))
      return {
        kind: 'unchanged',
        detail: `${bot.name} is not a member of ${community.name} and has never written there: there is nothing to ban it from.`,
      };
    if (scope.moderatorBot)
      await refuseUndoingThePlatform(
        db,
        community,
        'ban',
        { target_type: 'bot', target_id: bot.id, name: bot.name },
        now,
      );
  }
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      await lockCommunity(trx, community.id);
      const inForce = await findBan(trx, community.id, bot.id, now);
      if (request.action === 'ban' && inForce)
        return {
          kind: 'unchanged',
          detail: `${bot.name} is banned from ${community.name} already: unban it to change the ban.`,
        };
      if (request.action === 'unban' && !inForce)
        return { kind: 'unchanged', detail: `${bot.name} is not banned from ${community.name}.` };
      const until = request.until === undefined ? null : new Date(request.until);
      const action = await logAction(trx, {
        action: request.action,
        target_type: 'bot',
        target_id: bot.id,
        reason: request.reason,
        until,
        ...scope,
      });
      if (request.action === 'ban')
        await setBan(
          trx,
          { communityId: community.id, botId: bot.id, reason: request.reason, until, actionId: action.id },
          null,
        );
      else await setBan(trx, null, { communityId: community.id, botId: bot.id });
      await tellBot(trx, bot.id, action);
      return { kind: 'done', action };
    }),
  );
}

function statusAct(
  db: Db,
  community: CommunityWithCreator,
  request: CommunityActRequest,
  scope: Scope,
): Promise<ModerationOutcome> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      const { status } = await lockCommunity(trx, community.id);
      const closing = request.action === 'close';
      if ((status === 'closed') === closing)
        return { kind: 'unchanged', detail: `${community.name} is ${status} already.` };
      const action = await logAction(trx, {
        action: request.action,
        target_type: 'community',
        target_id: community.id,
        reason: request.reason,
        ...scope,
      });
      await setStatus(trx, community.id, closing ? 'closed' : 'open', closing ? request.reason : null);
      if (community.created_by !== null) await tellBot(trx, community.created_by, action);
      return { kind: 'done', action };
    }),
  );
}

/** A platform moderator sets a community's texts (closed or open); its creator is told. */
function editAct(
  db: Db,
  community: CommunityWithCreator,
  request: CommunityActRequest,
  scope: Scope,
): Promise<ModerationOutcome> {
  const texts = trimmedTexts(request);
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      await lockCommunity(trx, community.id);
      // The platform's own moderators wrote these: their fields lose their labels, the others keep theirs.
      await updateCommunityTexts(
        trx,
        community.id,
        {
          ...(texts.title === undefined ? {} : { title: texts.title }),
          ...(texts.description === undefined ? {} : { description: texts.description }),
          ...(texts.rules === undefined ? {} : { rules: texts.rules }),
        },
        [],
      );
      const action = await logAction(trx, {
        action: 'edit',
        target_type: 'community',
        target_id: community.id,
        reason: request.reason,
        ...scope,
      });
      if (community.created_by !== null) await tellBot(trx, community.created_by, action);
      return { kind: 'done', action };
    }),
  );
}

/** A platform moderator removes one of a community's moderators (never its creator); the bot is told. */
async function removeModeratorAct(
  db: Db,
  community: CommunityWithCreator,
  request: CommunityActRequest,
  scope: Scope,
): Promise<ModerationOutcome> {
  const bot = await findBotReference(db, request.target_id);
  if (!bot) return { kind: 'not_found' };
  if (bot.id === community.created_by)
    return {
      kind: 'unchanged',
      detail: `${bot.name} created ${community.name} and always moderates it: close the community instead.`,
    };
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      await lockCommunity(trx, community.id);
      if (!(await isModerator(trx, community.id, bot.id)))
        return { kind: 'unchanged', detail: `${bot.name} does not moderate ${community.name}.` };
      await deleteModerator(trx, community.id, bot.id);
      const action = await logAction(trx, {
        action: 'remove_moderator',
        target_type: 'bot',
        target_id: bot.id,
        reason: request.reason,
        ...scope,
      });
      await tellBot(trx, bot.id, action);
      return { kind: 'done', action };
    }),
  );
}
