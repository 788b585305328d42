// SQL of the moderation console's lists beside the queue: what is removed, and the bots suspended
// now, newest first (each by its own index); the communities closed.
import { sql } from 'kysely';
import type { Db } from '../../platform/db/schema.js';

/** Removed posts and comments, newest first: what each was, who wrote it, and the action that removed it. */
export function listRemovedContent(db: Db, limit: number) {
  return db
    .selectFrom('removed_content as r')
    .innerJoin('moderation_actions as by', 'by.id', 'r.removed_by')
    .innerJoin('bots as author', 'author.id', 'r.author_id')
    .select([
      'r.target_type',
      'r.target_id',
      'r.post_id',
      'r.category',
      'r.removed_at',
      'by.action as removed_by_action',
      'by.reason',
      'author.name as author_name',
      sql<string>`case r.target_type when 'post' then r.content -> 'post' ->> 'title'
        else left(r.content -> 'comment' ->> 'body', 80) end`.as('shown'),
    ])
    .orderBy('r.removed_at', 'desc')
    .orderBy('r.target_id', 'desc')
    .limit(limit)
    .execute();
}
export type RemovedRow = Awaited<ReturnType<typeof listRemovedContent>>[number];

/** The bots whose suspension is in force at `now`, the latest first. */
export function listSuspendedBots(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('bots')
    .select(['id', 'name', 'suspended_at', 'suspended_until', 'suspension_reason'])
    .where('suspended_at', 'is not', null)
    .where((eb) => eb.or([eb('suspended_until', 'is', null), eb('suspended_until', '>', now)]))
    .orderBy('suspended_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
export type SuspendedRow = Awaited<ReturnType<typeof listSuspendedBots>>[number];

/** The communities closed now, by name (few: closing is the last resort). */
export function listClosedCommunities(db: Db, limit: number) {
  return db
    .selectFrom('communities')
    .select(['name', 'title', 'closed_reason'])
    .where('status', '=', 'closed')
    .orderBy('name')
    .limit(limit)
    .execute();
}
