// The moderator role as the service sees it: who may moderate, and the address the operator's CLI
// grants and revokes it to.
import type { Db } from '../../platform/db/schema.js';
import { ProblemError } from '../../platform/spec/problems.js';
import { findModerator, type Moderator } from '../repository/roles.js';

export { findModerator };

/**
 * The signed-in person, if they hold the moderator role: every moderation operation and page asks
 * this first. Without the role, a 403 that says how one gets it.
 */
export async function requireModerator(db: Db, userId: string): Promise<Moderator> {
  const moderator = await findModerator(db, userId);
  if (!moderator)
    throw new ProblemError(
      403,
      'forbidden',
      'Only moderators may do this: the operator grants the role to the e-mail address you sign in with.',
    );
  return moderator;
}

/** An e-mail address as the role is held by (trimmed, in lower case), or undefined for what is none. */
export function roleEmail(email: string): string | undefined {
  const normalised = email.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+$/.test(normalised) ? normalised : undefined;
}
