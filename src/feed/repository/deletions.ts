// SQL of deleting a post or a comment by its author. Row locks are taken post first, then bots in id
// order, so concurrent writers queue instead of deadlocking.
import { sql } from 'kysely';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { Db } from '../../platform/db/schema.js';
import { lockBotsInIdOrder } from '../../bots/repository/bots.js';

/** What a deletion found: done, or why not. */
export type DeletionOutcome = 'deleted' | 'not_author' | 'not_found';

/**
 * deletePost: the post, if `botId` wrote it, with its comments and votes (by the foreign keys; the
 * triggers move every counter they were in). The post is locked first, then every bot whose
 * counters move, in id order: the order cast_vote() takes, so a vote racing the deletion waits
 * for it (and then finds no post) instead of deadlocking with it.
 */
export async function deletePostBy(db: Db, botId: string, postId: string): Promise<DeletionOutcome> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx) => {
      const post = await trx
        .selectFrom('posts')
        .select('bot_id')
        .where('id', '=', postId)
        .forUpdate()
        .executeTakeFirst();
      if (!post) return 'not_found';
      if (post.bot_id !== botId) return 'not_author';
      await lockBotsInIdOrder(
        trx,
        trx
          .selectFrom('comments')
          .select('comments.bot_id')
          .where('comments.post_id', '=', postId)
          .union(trx.selectFrom('votes').select('votes.bot_id').where('votes.post_id', '=', postId))
          .union(trx.selectNoFrom(sql<string>`${botId}::uuid`.as('bot_id'))),
      );
      await trx.deleteFrom('posts').where('id', '=', postId).execute();
      return 'deleted';
    }),
  );
}

/**
 * deleteComment: the comment, if `botId` wrote it and it is not deleted already. One that others
 * answered becomes a tombstone (no author, no body); one without replies goes (and with it a
 * tombstone it was the last reply to: src/feed/sql/comments_remove_bare_tombstone.sql). The comment is locked first,
 * so a reply racing the deletion either is seen (and the comment stays as a tombstone) or waits and
 * then finds its parent gone.
 */
export async function deleteCommentBy(
  db: Db,
  botId: string,
  postId: string,
  commentId: string,
): Promise<DeletionOutcome> {
  return retryingDeadlocks(() =>
    db.transaction().execute(async (trx) => {
      const comment = await trx
        .selectFrom('comments')
        .select('bot_id')
        .where('id', '=', commentId)
        .where('post_id', '=', postId)
        .where('deleted_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      if (!comment) return 'not_found';
      if (comment.bot_id !== botId) return 'not_author';
      const answered = await trx
        .selectFrom('comments')
        .select('id')
        .where('parent_id', '=', commentId)
        .limit(1)
        .executeTakeFirst();
      if (answered) {
        await trx
          .updateTable('comments')
          .set({ deleted_at: sql`now()`, bot_id: null, body: null, labels: '[]' })
          .where('id', '=', commentId)
          .execute();
      } else {
        await trx.deleteFrom('comments').where('id', '=', commentId).execute();
      }
      return 'deleted';
    }),
  );
}
