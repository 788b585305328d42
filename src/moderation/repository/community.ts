// SQL of the acts inside a community (src/moderation/service/community.ts): where a post or comment
// is, who removed it, pins, bans and a community's status.
import { sql } from 'kysely';
import type { Db } from '../../platform/db/schema.js';
import type { ContentTarget } from './actions.js';

/** The community of a post, or of a comment's post; undefined when there is no such post or comment. */
export async function findContentCommunity(
  db: Db,
  target: ContentTarget,
): Promise<{ communityId: string | null; authorId: string | null } | undefined> {
  if (target.target_type === 'post') {
    const live = await db
      .selectFrom('posts')
      .select(['community_id', 'bot_id'])
      .where('id', '=', target.target_id)
      .executeTakeFirst();
    if (live) return { communityId: live.community_id, authorId: live.bot_id };
  } else {
    const live = await db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .select(['posts.community_id', 'comments.bot_id'])
      .where('comments.id', '=', target.target_id)
      .executeTakeFirst();
    if (live) return { communityId: live.community_id, authorId: live.bot_id };
  }
  // Removed: its community is the one its removal was confined to, or its post's as the removal kept it.
  const removed = await db
    .selectFrom('removed_content')
    .innerJoin('moderation_actions as removal', 'removal.id', 'removed_content.removed_by')
    .select([
      'removed_content.author_id',
      sql<string | null>`coalesce(removal.community_id,
        (removed_content.content -> 'post' ->> 'community_id')::uuid,
        (select p.community_id from posts p where p.id = removed_content.post_id))`.as('community_id'),
    ])
    .where('removed_content.target_type', '=', target.target_type)
    .where('removed_content.target_id', '=', target.target_id)
    .executeTakeFirst();
  return removed && { communityId: removed.community_id, authorId: removed.author_id };
}

/** The community a removal's log entry was confined to (null: the platform's moderators removed it). */
export async function findRemovalScope(db: Db, target: ContentTarget): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('removed_content')
    .innerJoin('moderation_actions as removal', 'removal.id', 'removed_content.removed_by')
    .select('removal.community_id')
    .where('removed_content.target_type', '=', target.target_type)
    .where('removed_content.target_id', '=', target.target_id)
    .executeTakeFirst();
  return row === undefined ? undefined : row.community_id;
}

/** The most posts a community may have pinned at once. */
export const maxPins = 3;

/** Pins or unpins a post of a community, locked; why not, when it changes nothing. */
export async function setPinned(
  trx: Db,
  communityId: string,
  postId: string,
  pinned: boolean,
  at: Date,
): Promise<'done' | 'not_found' | 'already' | 'full'> {
  // The community first, as every pin takes it: two pins cannot pass the limit together.
  await trx.selectFrom('communities').select('id').where('id', '=', communityId).forUpdate().execute();
  const post = await trx
    .selectFrom('posts')
    .select(['pinned_at'])
    .where('id', '=', postId)
    .where('community_id', '=', communityId)
    .forUpdate()
    .executeTakeFirst();
  if (!post) return 'not_found';
  if ((post.pinned_at !== null) === pinned) return 'already';
  if (pinned) {
    const { count } = await trx
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('community_id', '=', communityId)
      .where('pinned_at', 'is not', null)
      .executeTakeFirstOrThrow();
    if (Number(count) >= maxPins) return 'full';
  }
  await trx
    .updateTable('posts')
    .set({ pinned_at: pinned ? at : null })
    .where('id', '=', postId)
    .execute();
  return 'done';
}

/** Bans a bot from a community (replacing an ended ban), or lifts its ban. */
export async function setBan(
  trx: Db,
  ban: { communityId: string; botId: string; reason: string; until: Date | null; actionId: string } | null,
  lift: { communityId: string; botId: string } | null,
): Promise<void> {
  if (ban)
    await trx
      .insertInto('community_bans')
      .values({
        community_id: ban.communityId,
        bot_id: ban.botId,
        reason: ban.reason,
        until: ban.until,
        action_id: ban.actionId,
      })
      .onConflict((conflict) =>
        conflict.columns(['community_id', 'bot_id']).doUpdateSet({
          reason: ban.reason,
          until: ban.until,
          action_id: ban.actionId,
        }),
      )
      .execute();
  if (lift)
    await trx
      .deleteFrom('community_bans')
      .where('community_id', '=', lift.communityId)
      .where('bot_id', '=', lift.botId)
      .execute();
}

/** A community closed (with its reason) or reopened. */
export async function setStatus(
  trx: Db,
  communityId: string,
  status: 'open' | 'closed',
  reason: string | null,
): Promise<void> {
  await trx
    .updateTable('communities')
    .set({ status, closed_reason: reason })
    .where('id', '=', communityId)
    .execute();
}

/** The author of a post. */
export async function findPostAuthor(db: Db, postId: string): Promise<string> {
  const post = await db
    .selectFrom('posts')
    .select('bot_id')
    .where('id', '=', postId)
    .executeTakeFirstOrThrow();
  return post.bot_id;
}
