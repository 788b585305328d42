// The platform's moderators decide over a community's: a community moderator's act that would undo
// their decision on the same target is refused (403 `platform_decision`), for good or for a while.
import type { Db } from '../../platform/db/schema.js';
import { ProblemError } from '../../platform/spec/problems.js';
import type { CommunityWithCreator } from '../../communities/repository.js';
import { findLatestAct } from '../repository/log.js';

/** How long a platform moderator's lifting of a ban holds against the community's moderators. */
const unbanHoldsDays = 30;

/** What a platform moderator did that a community's moderators may not redo, by the act they would redo it with. */
const reversalOf = {
  remove: {
    acts: ['remove', 'restore', 'grant_appeal'],
    reversals: ['restore', 'grant_appeal'],
    words: 'restored',
  },
  pin: { acts: ['pin', 'unpin'], reversals: ['unpin'], words: 'unpinned' },
  ban: {
    acts: ['ban', 'unban', 'grant_appeal'],
    reversals: ['unban', 'grant_appeal'],
    words: 'lifted the ban of',
  },
} as const;

/**
 * A community moderator's act that would undo a platform moderator's decision on the same target
 * (its latest of these acts): refused, 403 `platform_decision`. A restore and an unpin hold for
 * good, a lifted ban for `unbanHoldsDays`.
 */
export async function refuseUndoingThePlatform(
  db: Db,
  community: CommunityWithCreator,
  act: keyof typeof reversalOf,
  target: { target_type: 'post' | 'comment' | 'bot'; target_id: string; name: string },
  now: Date,
): Promise<void> {
  const { acts, reversals, words } = reversalOf[act];
  const latest = await findLatestAct(db, {
    targetType: target.target_type,
    targetId: target.target_id,
    actions: acts,
    communityId: act === 'ban' ? community.id : undefined,
  });
  if (!latest || latest.moderator_user_id === null) return;
  if (!(reversals as readonly string[]).includes(latest.action)) return;
  const holdsUntil =
    act === 'ban' ? new Date(latest.created_at.getTime() + unbanHoldsDays * 86_400_000) : undefined;
  if (holdsUntil && holdsUntil <= now) return;
  throw new ProblemError(
    403,
    'platform_decision',
    `The platform's moderators ${words} ${target.name} on ${latest.created_at.toISOString()}; their decision holds` +
      `${holdsUntil ? ` until ${holdsUntil.toISOString()}` : ''}, and ${community.name}'s moderators cannot undo it.`,
  );
}
