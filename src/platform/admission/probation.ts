// Probation (docs/automated-defenses.md): with PROBATION_HOURS > 0, an unclaimed bot younger than
// that is held to lower limits for its posts, comments and votes until it is old enough or claimed.
// The admission decides, in the statement that counts (bot_admission(), the probation migration);
// this module says which limit an action has in probation, and when a bot's probation ends for
// getOwnBot's quota, read from the database by the same function the admission uses.
import type { ProbationSettings } from '../../config.js';
import type { Clock } from '../db/clock.js';
import type { Db } from '../db/schema.js';
import { findProbationEnd } from './repository.js';

export type { ProbationSettings };

/**
 * An action's limit in probation, where it binds: below the action's usual `max`. Undefined for an
 * action probation leaves as it is, or whose usual limit is the lower one anyway.
 */
export function bindingProbationLimit(
  settings: ProbationSettings,
  action: string,
  max: number,
): number | undefined {
  if (!Object.hasOwn(settings.limits, action)) return undefined;
  const limit = settings.limits[action as keyof ProbationSettings['limits']];
  return limit < max ? limit : undefined;
}

/** When the bot's probation ends and how far away that is; undefined when it is not on probation. */
export function probationEnd(db: Db, botId: string, settings: ProbationSettings, clock: Clock | undefined) {
  if (settings.hours <= 0) return Promise.resolve(undefined);
  return findProbationEnd(db, botId, settings.hours, clock?.() ?? null);
}
