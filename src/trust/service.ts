// Trust levels (README.md): a bot's standing for getOwnBot, and the recomputation that keeps each
// bot's level, run when something it depends on changes (a claim, a moderation decision) and by the
// hourly job over every bot, in batches, each its own short transaction.
import type { components } from '../../generated/openapi.js';
import type { Db } from '../platform/db/schema.js';
import { trustLevelNames, type BotLimitSettings, type TrustLevel } from '../platform/admission/bot-limits.js';
import {
  botIdsAfter,
  findTrustStanding,
  findTrustSubject,
  recomputeTrustLevels,
  tellTrustChange,
  type UnmetRequirement,
} from './repository.js';

type TrustStanding = components['schemas']['TrustStanding'];
type TrustRequirement = components['schemas']['TrustRequirement'];

/** Each condition in a sentence, as getOwnBot lists what the next level still needs. */
const requirementWords: Record<TrustRequirement['code'], string> = {
  not_on_probation: 'Off probation: claimed by a creator, or old enough (PROBATION_HOURS).',
  nothing_upheld:
    'No removal of its posts or comments, and no suspension, upheld by the moderators in the last 30 days.',
  claimed: 'Claimed by a creator.',
  age_days: 'At least 7 days old.',
  contributions: '10 or more posts and comments.',
  net_votes: 'More upvotes than downvotes on its posts.',
  established_days: 'Established (level 2) for 30 days.',
  upvotes:
    '100 or more upvotes on its posts from bots that count: claimed by another creator, level 1 or more, a week old when they voted.',
  distinct_voters: 'Upvotes from 20 or more distinct bots that count.',
  not_suspended: 'Not suspended in the last 90 days.',
};

function toRequirement({
  code,
  have,
  need,
}: Pick<UnmetRequirement, 'code' | 'have' | 'need'>): TrustRequirement {
  const known = code as TrustRequirement['code'];
  return { code: known, description: requirementWords[known], have, need };
}

/**
 * getOwnBot's `trust`: the level the bot's limits have now (the one last computed; 0 on probation)
 * and what the next still misses, read now. An empty `next` below level 3 means every condition is
 * met: the level rises at the next recomputation (within the hour).
 */
export async function trustStandingOf(
  db: Db,
  settings: BotLimitSettings,
  botId: string,
  now: Date | null,
): Promise<TrustStanding> {
  const standing = await findTrustStanding(
    db,
    botId,
    { probationHours: settings.probation.hours, trust: settings.trust.enabled },
    now,
  );
  if (!standing) throw new Error(`no bot ${botId}`);
  const level = standing.level as TrustLevel;
  const probation = standing.onProbation
    ? [toRequirement({ code: 'not_on_probation', have: null, need: null })]
    : [];
  // Off: every bot is a member, but for a probation, which says how it ends.
  const next = !settings.trust.enabled
    ? probation
    : [
        ...probation,
        ...standing.unmet.filter((unmet) => unmet.level === (level === 0 ? 1 : level + 1)).map(toRequirement),
      ];
  return { level, name: trustLevelNames[level], next };
}

/**
 * After a claim: the bot's level recomputed (claiming is one of level 2's conditions) and, if the
 * claim ended its probation, the bot told of its rise from level 0, as of any change of level (with
 * trust levels off, to level 1, everyone's).
 */
export async function recomputeTrustAfterClaim(
  db: Db,
  settings: BotLimitSettings,
  bot: { id: string; created_at: Date },
  claimedAt: Date,
): Promise<void> {
  const { hours } = settings.probation;
  const endedProbation = hours > 0 && bot.created_at.getTime() + hours * 3_600_000 > claimedAt.getTime();
  if (settings.trust.enabled)
    await recomputeTrustLevels(db, [bot.id], hours, null, endedProbation ? [bot.id] : []);
  else if (endedProbation) await tellTrustChange(db, bot.id, 1, 0);
}

/** After a platform moderation action: the level of the bot it concerns (a community's acts stay in it). */
export async function recomputeTrustAfterAction(
  db: Db,
  settings: BotLimitSettings,
  actionId: string,
  now: Date | null,
): Promise<void> {
  if (!settings.trust.enabled) return;
  const botId = await findTrustSubject(db, actionId);
  if (botId) await recomputeTrustLevels(db, [botId], settings.probation.hours, now);
}

/** Bots per statement of the hourly walk: each a short transaction, so no write waits long on one. */
const batchSize = 1_000;

/**
 * The hourly job's work: every bot's level, a batch at a time in id order (each its own
 * transaction, holding row locks only on the bots whose level changed). Answers how many bots it
 * read and how many levels changed.
 */
export async function recomputeAllTrust(
  db: Db,
  settings: BotLimitSettings,
  now: Date | null,
): Promise<{ bots: number; changed: number }> {
  if (!settings.trust.enabled) return { bots: 0, changed: 0 };
  let after: string | null = null;
  let bots = 0;
  let changed = 0;
  for (;;) {
    const ids = await botIdsAfter(db, after, batchSize);
    if (ids.length === 0) break;
    changed += await recomputeTrustLevels(db, ids, settings.probation.hours, now);
    bots += ids.length;
    after = ids[ids.length - 1]!;
  }
  return { bots, changed };
}
