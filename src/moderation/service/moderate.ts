// moderate: a platform moderator's act, refused by name where the schema cannot say it, on a post,
// comment or bot (./actions.ts) or on a community and inside one (./community.ts).
import type { Db } from '../../platform/db/schema.js';
import { validationFailed, type FieldError } from '../../platform/spec/problems.js';
import type {
  ModerateRequest as ModerateRequestSchema,
  ModerationAction,
  Report,
} from '../../platform/spec/schemas.js';
import type { Moderator } from '../repository/roles.js';
import { applyModeration, settled, targetProblems } from './actions.js';
import { moderateCommunity } from './community.js';

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

/** The acts of `moderate` on communities, which ./community.ts carries out. */
const communityActions = ['unpin', 'unban', 'close', 'reopen', 'edit', 'remove_moderator'] as const;
/** Those that act inside a community named by `community`. */
const insideCommunity = new Set<string>(['unpin', 'unban', 'remove_moderator']);
type CommunityAction = (typeof communityActions)[number];
type PlatformAction = Exclude<ModerateRequest['action'], CommunityAction>;
const isCommunityAction = (action: ModerateRequest['action']): action is CommunityAction =>
  (communityActions as readonly string[]).includes(action);

/**
 * What follows a platform action or an appeal's decision, in its own statement after the action's
 * transaction: the trust level of the bot it concerns (src/trust/), which areas.ts hands in.
 */
export type AfterModeration = (db: Db, actionId: string) => Promise<void>;

/** What the schema cannot say about a moderate request, refused by name. */
function moderateProblems(request: ModerateRequest & { action: PlatformAction }, now: Date): FieldError[] {
  const problems = targetProblems(request, []);
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
  afterModeration: AfterModeration,
): Promise<ModerationAction> {
  if (isCommunityAction(request.action)) {
    const action = request.action;
    if (insideCommunity.has(action) && request.community === undefined)
      throw validationFailed([{ in: 'body', pointer: '/community', message: `is required to ${action}` }]);
    const community = request.target_type === 'community' ? request.target_id : (request.community ?? '');
    return moderateCommunity(db, { moderator }, community, { ...request, action }, now);
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
