// SQL of the moderator role (the moderation migration): who holds it, granting and revoking it, logged.
import { sql } from 'kysely';
import type { Db } from '../../platform/db/schema.js';

/** A signed-in person holding the moderator role, with their creator handle if they have one. */
export interface Moderator {
  userId: string;
  handle: string | null;
}

/** The person signed in as `userId`, if the e-mail address they signed in with holds the role. */
export async function findModerator(db: Db, userId: string): Promise<Moderator | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('moderators', (join) => join.on(sql<boolean>`moderators.email = lower(users.email)`))
    .leftJoin('creators', 'creators.user_id', 'users.id')
    .select(['users.id', 'creators.handle'])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  return row && { userId: row.id, handle: row.handle };
}

/** Who changes the role, for the log: the operator's CLI (its --actor) and why. */
export interface RoleChange {
  email: string;
  actor: string;
  reason: string;
  /** A grant's name for the console (grant-moderator --name). */
  displayName?: string | undefined;
}

/** Sets a moderator's name for the console; false when the address holds no role. */
export async function nameModerator(db: Db, email: string, displayName: string): Promise<boolean> {
  const row = await db
    .updateTable('moderators')
    .set({ display_name: displayName })
    .where('email', '=', email)
    .returning('email')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Grants the role to an address and logs it, in one statement; false (nothing logged) if the
 * address held it already.
 */
export function grantModeratorRole(db: Db, change: RoleChange): Promise<boolean> {
  return changeRole(db, change, 'grant_moderator');
}

/** Takes the role from an address and logs it, in one statement; false if it did not hold it. */
export function revokeModeratorRole(db: Db, change: RoleChange): Promise<boolean> {
  return changeRole(db, change, 'revoke_moderator');
}

/** The change made, and logged by the same statement only if it changed something. */
async function changeRole(
  db: Db,
  change: RoleChange,
  action: 'grant_moderator' | 'revoke_moderator',
): Promise<boolean> {
  const row = await db
    .with('changed', (db) =>
      action === 'grant_moderator'
        ? db
            .insertInto('moderators')
            .values({ email: change.email, display_name: change.displayName ?? null })
            .onConflict((conflict) => conflict.doNothing())
            .returning('email')
        : db.deleteFrom('moderators').where('moderators.email', '=', change.email).returning('email'),
    )
    .insertInto('moderation_actions')
    .columns(['action', 'target_type', 'target_email', 'reason', 'actor'])
    .expression((eb) =>
      eb
        .selectFrom('changed')
        .select([
          sql.lit(action).as('action'),
          sql.lit('human').as('target_type'),
          'changed.email',
          sql.val(change.reason).as('reason'),
          sql.val(change.actor).as('actor'),
        ]),
    )
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
