// What a moderation act is, decided in one place (README.md): which targets each act takes, the act
// in one transaction (the target locked, the no-op refused, the log entry, the open reports it
// closes, the change, the bot told), its answer, the platform's own acts, and removals' words.
// moderate.ts and community.ts decide who may ask for which; ../repository/ reads and writes rows.
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { Db } from '../../platform/db/schema.js';
import { suspensionOf } from '../../platform/admission/suspension.js';
import { uuidPattern } from '../../platform/spec/formats.js';
import { notFound, ProblemError, type FieldError } from '../../platform/spec/problems.js';
import type { ModerationAction, Report, ReportReason } from '../../platform/spec/schemas.js';
import {
  closeOpenReports,
  findRemoval,
  hasOpenReports,
  hideContentOf,
  liftSuspension,
  listEndedSuspensions,
  lockContentOf,
  lockTarget,
  mostReportedReason,
  removeContent,
  restoreContent,
  setSuspension,
  takeOverRemoval,
  type ContentTarget,
  type LockedTarget,
} from '../repository/actions.js';
import { logAction, tellBot, type ModerationActionRow } from '../repository/log.js';
import type { Moderator } from '../repository/roles.js';
import { toModerationAction } from './log.js';

/** Every act a moderator (a person or a community's bot) takes. */
export type Act =
  | 'remove'
  | 'restore'
  | 'suspend'
  | 'unsuspend'
  | 'dismiss'
  | 'pin'
  | 'unpin'
  | 'ban'
  | 'unban'
  | 'close'
  | 'reopen'
  | 'edit'
  | 'remove_moderator';
type TargetType = Report['target_type'] | 'community';

/** What each act may be taken on. */
export const targetsOf: Record<Act, ReadonlyArray<TargetType>> = {
  remove: ['post', 'comment'],
  restore: ['post', 'comment'],
  suspend: ['bot'],
  unsuspend: ['bot'],
  dismiss: ['post', 'comment', 'bot'],
  pin: ['post'],
  unpin: ['post'],
  ban: ['bot'],
  unban: ['bot'],
  close: ['community'],
  reopen: ['community'],
  edit: ['community'],
  remove_moderator: ['bot'],
};

/**
 * A request's target refused by name: a type the act does not take, or an id that is not one
 * (`named`: the types that may also be named by their name).
 */
export function targetProblems(
  request: { action: Act; target_type: TargetType; target_id: string },
  named: ReadonlyArray<TargetType>,
): FieldError[] {
  const targets = targetsOf[request.action];
  if (!targets.includes(request.target_type))
    return [
      {
        in: 'body',
        pointer: '/target_type',
        message: `must be ${targets.join(' or ')} to ${request.action}`,
      },
    ];
  if (!named.includes(request.target_type) && !uuidPattern.test(request.target_id))
    return [{ in: 'body', pointer: '/target_id', message: `must be the ${request.target_type}'s id` }];
  return [];
}

/** An act of the platform's moderators (or of the platform itself, `actor`) on a post, comment or bot. */
export interface ModerationAsk {
  action: 'remove' | 'restore' | 'suspend' | 'unsuspend' | 'dismiss';
  target_type: Report['target_type'];
  target_id: string;
  reason: string;
  until: Date | null;
  hide_content: boolean;
  /** For remove and suspend; null: what most of the target's open reports say. */
  category: ReportReason | null;
  moderator: Moderator | null;
  actor: string | null;
  /** For the platform's lifting: only a suspension whose end has come (not one a moderator made since). */
  onlyEnded?: boolean;
  /** A community moderator's act: the community it is confined to (its id), and the bot who acts. */
  communityId?: string | undefined;
  moderatorBot?: { id: string; name: string } | undefined;
}

/** What an act found: the action written, or why nothing was. */
export type ModerationOutcome =
  | { kind: 'done'; action: ModerationActionRow }
  | { kind: 'not_found' }
  | { kind: 'unchanged'; detail: string };

/** An act's answer: the action written, a 404 for no such target, a 409 for a no-op. */
export function settled(
  outcome: ModerationOutcome,
  target: { target_type: string; target_id: string },
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

/** Why an act would change nothing, or undefined when it changes something. */
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
    case 'dismiss':
      return (await hasOpenReports(trx, ask)) ? undefined : `This ${ask.target_type} has no open reports.`;
  }
}

/**
 * A remove, restore, suspend, unsuspend or dismiss, in one transaction: the target locked, the
 * action logged, the target's open reports closed by it, what it changes changed (remove_content.sql,
 * restore_content.sql, hide_content_of.sql), and the bot told. A no-op writes nothing. `now` is the
 * application's clock, which decides whether a suspension is in force.
 */
export async function applyModeration(db: Db, ask: ModerationAsk, now: Date): Promise<ModerationOutcome> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx): Promise<ModerationOutcome> => {
      if (ask.action === 'suspend' && ask.hide_content) await lockContentOf(trx, ask.target_id);
      const target = await lockTarget(trx, ask);
      if (!target) return { kind: 'not_found' };
      const unchanged = await noOp(trx, ask, target, now);
      if (unchanged) return { kind: 'unchanged', detail: unchanged };
      if (ask.action === 'restore' && (await restoreContent(trx, ask)) === 'gone')
        return { kind: 'unchanged', detail: 'The post of this comment is removed: restore the post first.' };
      const category =
        ask.action === 'remove' || ask.action === 'suspend'
          ? (ask.category ?? (await mostReportedReason(trx, ask)))
          : null;
      // Closed first, so that the removal's deletion finds no open report to forget.
      const action = await logAction(trx, { ...ask, category });
      await closeOpenReports(trx, ask, action);
      switch (ask.action) {
        case 'remove': {
          const content = ask as ModerationAsk & ContentTarget;
          if (target.removal) await takeOverRemoval(trx, content, action.id, category!);
          else await removeContent(trx, content, action, category!);
          break;
        }
        case 'suspend':
          // One that ended by its time is lifted first: what it hid comes back before this one hides.
          if (target.suspension.suspended_at !== null)
            await liftSuspension(trx, ask.target_id, target.suspension.suspension_action_id);
          await setSuspension(trx, ask.target_id, {
            at: action.created_at,
            until: ask.until,
            reason: ask.reason,
            actionId: action.id,
          });
          if (ask.hide_content) await hideContentOf(trx, ask.target_id, action, category);
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
const categoryWords: Record<ReportReason, string> = {
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
export async function removedProblem(db: Db, target: ContentTarget): Promise<ProblemError | undefined> {
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
