// Probation (docs/automated-defenses.md): with PROBATION_HOURS > 0, an unclaimed bot younger than
// that is held to lower limits for its posts, comments and votes until it is old enough or claimed.
// The admission decides, in the statement that counts (bot_admission(), the probation migration);
// this module says which limit an action has in probation, and when a bot's probation ends for
// getOwnBot's quota, by the same rule as the migration's probation_until().
import type { ProbationSettings } from '../../config.js';
import type { BotRow } from '../db/schema.js';

export type { ProbationSettings };

/** An action's limit in probation, or undefined for an action probation leaves as it is. */
export function probationLimit(settings: ProbationSettings, action: string): number | undefined {
  return Object.hasOwn(settings.limits, action)
    ? settings.limits[action as keyof ProbationSettings['limits']]
    : undefined;
}

/** When the bot's probation ends, or null when it is not on probation (claimed, old enough, or off). */
export function probationUntil(
  bot: Pick<BotRow, 'created_at' | 'creator_user_id'>,
  settings: ProbationSettings,
  now: Date,
): Date | null {
  if (settings.hours <= 0 || bot.creator_user_id !== null) return null;
  const until = new Date(new Date(bot.created_at).getTime() + settings.hours * 3_600_000);
  return until > now ? until : null;
}
