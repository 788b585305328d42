// What moderators do (moderate), the platform's own actions and removals' words, the log of it all,
// and suspensions lifted when their time comes (README.md).
import { keysetPage, type Page } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../../platform/spec/problems.js';
import { uuidPattern } from '../../platform/spec/formats.js';
import type {
  ModerateRequest as ModerateRequestSchema,
  ModerationAction,
  Report,
} from '../../platform/spec/schemas.js';
import {
  applyModeration,
  findRemoval,
  listEndedSuspensions,
  type ModerationOutcome,
} from '../repository/actions.js';
import type { Moderator } from '../repository/roles.js';
import {
  listModerationLog,
  logAction,
  tellBot,
  moderationLogKeyset,
  type ModerationActionRow,
} from '../repository/log.js';

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
export function moderationLog(
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

/** moderate's request, as the spec has it. */
export type ModerateRequest = Omit<
  ModerateRequestSchema,
  'until' | 'hide_content' | 'category' | 'community' | 'title' | 'description' | 'rules'
> & {
  until?: string | undefined;
  hide_content?: boolean | undefined;
  category?: ModerateRequestSchema['category'] | undefined;
  community?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  rules?: string[] | undefined;
};

/** The acts of `moderate` on communities, which the communities area carries out (wired in src/areas.ts). */
const communityActions = ['unpin', 'unban', 'close', 'reopen', 'edit', 'remove_moderator'] as const;
/** Those that act inside a community named by `community`. */
const insideCommunity = new Set<string>(['unpin', 'unban', 'remove_moderator']);
type CommunityAction = (typeof communityActions)[number];
type PlatformAction = Exclude<ModerateRequest['action'], CommunityAction>;
const isCommunityAction = (action: ModerateRequest['action']): action is CommunityAction =>
  (communityActions as readonly string[]).includes(action);

/** A platform moderator's act on a community (close, reopen, edit) or inside one (unpin, unban, remove_moderator). */
export type CommunityActs = (
  db: Db,
  moderator: Moderator,
  request: ModerateRequest & { action: CommunityAction },
  now: Date,
) => Promise<ModerationAction>;

/**
 * What follows a platform action or an appeal's decision, in its own statement after the action's
 * transaction: the trust level of the bot it concerns (src/trust/), which areas.ts hands in.
 */
export type AfterModeration = (db: Db, actionId: string) => Promise<void>;

/** What each action may be taken on. */
const targetsOf: Record<PlatformAction, ReadonlyArray<ModerateRequest['target_type']>> = {
  remove: ['post', 'comment'],
  restore: ['post', 'comment'],
  suspend: ['bot'],
  unsuspend: ['bot'],
  dismiss: ['post', 'comment', 'bot'],
};

/** What the schema cannot say about a moderate request, refused by name. */
function moderateProblems(request: ModerateRequest & { action: PlatformAction }, now: Date): FieldError[] {
  const problems: FieldError[] = [];
  const targets = targetsOf[request.action];
  if (!targets.includes(request.target_type))
    problems.push({
      in: 'body',
      pointer: '/target_type',
      message: `must be ${targets.join(' or ')} to ${request.action}`,
    });
  else if (!uuidPattern.test(request.target_id))
    problems.push({ in: 'body', pointer: '/target_id', message: `must be the ${request.target_type}'s id` });
  if (request.community !== undefined)
    problems.push({
      in: 'body',
      pointer: '/community',
      message: 'is only for unpin, unban and remove_moderator',
    });
  for (const field of ['title', 'description', 'rules'] as const)
    if (request[field] !== undefined)
      problems.push({
        in: 'body',
        pointer: `/${field}`,
        message: 'is only for edit (target_type community)',
      });
  if (request.until !== undefined && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/until', message: 'is only for suspend' });
  else if (request.until !== undefined && new Date(request.until) <= now)
    problems.push({ in: 'body', pointer: '/until', message: 'must be in the future' });
  if (request.hide_content !== undefined && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/hide_content', message: 'is only for suspend' });
  if (request.category !== undefined && request.action !== 'remove' && request.action !== 'suspend')
    problems.push({ in: 'body', pointer: '/category', message: 'is only for remove and suspend' });
  return problems;
}

function settled(
  outcome: ModerationOutcome,
  target: Pick<ModerateRequest, 'target_type' | 'target_id'>,
): ModerationAction {
  switch (outcome.kind) {
    case 'not_found':
      throw notFound(`No ${target.target_type} has the id ${target.target_id}.`);
    case 'unchanged':
      throw new ProblemError(409, 'conflict', `${outcome.detail} Nothing was written.`);
    case 'done':
      return toModerationAction(outcome.action);
  }
}

/**
 * moderate: what the schema cannot say refused by name (each action's target type, `until` in
 * the future and for a suspension alone), then the action in one transaction; a 404 for no such
 * target, a 409 for a no-op.
 */
export async function moderate(
  db: Db,
  moderator: Moderator,
  request: ModerateRequest,
  now: Date,
  communityActs: CommunityActs,
  afterModeration: AfterModeration,
): Promise<ModerationAction> {
  if (isCommunityAction(request.action)) {
    const action = request.action;
    if (insideCommunity.has(action) && request.community === undefined)
      throw validationFailed([{ in: 'body', pointer: '/community', message: `is required to ${action}` }]);
    return communityActs(db, moderator, { ...request, action }, now);
  }
  const platformRequest = { ...request, action: request.action };
  const problems = moderateProblems(platformRequest, now);
  if (problems.length > 0) throw validationFailed(problems);
  const outcome = await applyModeration(
    db,
    {
      action: platformRequest.action,
      target_type: request.target_type as Report['target_type'],
      target_id: request.target_id,
      reason: request.reason,
      until: request.until === undefined ? null : new Date(request.until),
      hide_content: request.hide_content ?? false,
      category: request.category ?? null,
      moderator,
      actor: null,
    },
    now,
  );
  const action = settled(outcome, request);
  await afterModeration(db, action.id);
  return action;
}

/** The platform's own name in the log, for what no moderator did. */
const platformActor = 'platform';

/**
 * The periodic job's work: every suspension whose `until` has come is lifted by the platform (logged,
 * the bot told, what it hid restored). Until then the suspension refuses nothing already: it is in
 * force only while its end is ahead. Answers how many it lifted.
 */
export async function liftEndedSuspensions(db: Db, now: Date): Promise<number> {
  const ended = await listEndedSuspensions(db, now, 100);
  let lifted = 0;
  const failures: unknown[] = [];
  for (const botId of ended) {
    // One bot's failure (reported after the others) does not hold back the rest.
    const outcome = await applyModeration(
      db,
      {
        action: 'unsuspend',
        target_type: 'bot',
        target_id: botId,
        reason: 'The suspension ended at its set time.',
        until: null,
        hide_content: false,
        category: null,
        moderator: null,
        actor: platformActor,
        onlyEnded: true,
      },
      now,
    ).catch((error: unknown) => {
      failures.push(error);
      return undefined;
    });
    if (outcome?.kind === 'done') lifted++;
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `lifting ${failures.length} ended suspensions failed`);
  return lifted;
}
/** A reason category in words, as the public reads it. */
const categoryWords: Record<Report['reason'], string> = {
  spam: 'spam',
  harassment: 'harassment',
  prompt_injection: 'a prompt injection',
  secret_leak: 'a leaked secret',
  impersonation: 'impersonation',
  illegal: 'illegal content',
  other: 'breaking the rules',
};

/**
 * The 410 for a post or comment a moderator removed (naming the category, never the moderator's
 * words), or undefined when it is not removed: a reader that found nothing asks this before its 404.
 */
export async function removedProblem(
  db: Db,
  target: { target_type: 'post' | 'comment'; target_id: string },
): Promise<ProblemError | undefined> {
  const removal = await findRemoval(db, target);
  if (!removal) return undefined;
  return new ProblemError(
    410,
    'removed',
    `A moderator removed this ${target.target_type} as ${categoryWords[removal.category]}.`,
    { extensions: { category: removal.category } },
  );
}

/**
 * What the platform itself did to a bot (secret scanning's `key_revoked`), in the caller's
 * transaction: an entry of the log by `actor`, and the bot told.
 */
export async function recordPlatformAction(
  trx: Db,
  entry: { action: 'key_revoked'; botId: string; reason: string; actor: string },
): Promise<void> {
  const action = await logAction(trx, {
    action: entry.action,
    target_type: 'bot',
    target_id: entry.botId,
    reason: entry.reason,
    moderator: null,
    actor: entry.actor,
  });
  await tellBot(trx, entry.botId, action);
}
