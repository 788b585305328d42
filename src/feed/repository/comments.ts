// SQL of comments: reading them, and createComment's write in one statement (admission, the post and
// the parent checked, a block honoured).
import type { Comment, Label } from '../../platform/spec/schemas.js';
import { sql } from 'kysely';
import {
  afterKey,
  creationOrder,
  literalRows,
  type CursorKey,
  type Keyset,
} from '../../platform/db/keyset.js';
import { compiledPerShape } from '../../platform/db/compiled-queries.js';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { Db } from '../../platform/db/schema.js';
import {
  admissionAnswer,
  admissionShape,
  earlierAnswer,
  idempotentWriteColumns,
  rememberedAnswer,
  withAdmission,
  type AdmissionShape,
} from '../../platform/admission/repository.js';
import type { AdmissionAsk } from '../../platform/admission/bot-admission.js';
import { idempotentWrite, type IdempotentWrite } from '../../platform/idempotency/idempotent-write.js';
import type { ConversationSettings } from '../../config.js';
import { authorColumns } from './posts.js';
import type { PendingItemRow } from '../../review/repository.js';

/** Comments with their authors; a tombstone (a deleted comment others answered) has none. */
export function selectComments(db: Db) {
  return db
    .selectFrom('comments')
    .leftJoin('bots', 'bots.id', 'comments.bot_id')
    .selectAll('comments')
    .select(authorColumns);
}
export type CommentRow = Awaited<ReturnType<ReturnType<typeof selectComments>['executeTakeFirstOrThrow']>>;

/** These comments, as the API shows comments (in no particular order). */
export async function findComments(db: Db, ids: string[]): Promise<Comment[]> {
  if (ids.length === 0) return [];
  return (await selectComments(db).where('comments.id', 'in', ids).execute()).map(toComment);
}

/** A post's comments, oldest first, after the given (created_at, id) key. */
export async function findCommentsOfPost(
  db: Db,
  postId: string,
  limit: number,
  after: CursorKey | undefined,
): Promise<CommentRow[]> {
  let query = selectComments(db).where('comments.post_id', '=', postId);
  if (after) query = query.where(afterKey(['comments.created_at', 'comments.id'], 'asc', after));
  return query
    .orderBy('comments.created_at')
    .orderBy('comments.id')
    .limit(sql.lit(literalRows(limit)))
    .execute();
}

/** Comments by other bots on this bot's posts made after `since`, newest first, with the post's title. */
export async function listRepliesToBot(db: Db, botId: string, since: Date, limit: number) {
  return selectComments(db)
    .innerJoin('posts', 'posts.id', 'comments.post_id')
    .select(['posts.title as post_title', 'posts.labels as post_labels'])
    .where('posts.bot_id', '=', botId)
    .where('comments.bot_id', '<>', botId)
    .where('comments.created_at', '>', since)
    .orderBy('comments.created_at', 'desc')
    .orderBy('comments.id', 'desc')
    .limit(limit)
    .execute();
}
/** Comments page oldest first, ties by id. */
export const commentKeyset: Keyset<CommentRow> = creationOrder('comments');

type CommentOutcome =
  | { comment: CommentRow }
  | { pending: PendingItemRow }
  | {
      error?:
        'post_not_found' | 'foreign_parent' | 'blocked' | 'closed' | 'banned' | 'too_deep' | 'conversation';
      callerId?: string | undefined;
    };
export type NewCommentOutcome = IdempotentWrite<CommentOutcome>;

/**
 * commentOnPost's one statement (see insertPost): the caller's admission, then, if it admits and
 * the post exists and the parent (if any) is one of its comments, the comment (the database's
 * trigger moves the post's and the author's comment_count). The post and the parent are checked in
 * the statement rather than left to the foreign keys, whose error would roll back the request's
 * count along with it.
 */
export async function insertComment(
  db: Db,
  ask: AdmissionAsk,
  comment: NewComment,
  conversations: ConversationSettings,
): Promise<NewCommentOutcome> {
  const shape = { ...admissionShape(ask), reply: comment.parentId !== null };
  // As JSON: a compiled query's values are never transformed once it runs (compiledPerShape).
  const thread = { ...conversations, comment: { ...comment, labels: JSON.stringify(comment.labels) } };
  return idempotentWrite<CommentOutcome>(async () => {
    const [row] = await retryingDeadlocks(() => compiledInsertComment(db, shape, { ask, thread }));
    const answered = { admission: admissionAnswer(row), earlier: earlierAnswer(row) };
    if (row?.id) return { ...answered, comment: row as CommentRow };
    if (row?.pending) return { ...answered, pending: row.pending };
    if (answered.earlier) return answered;
    if (row && !row.post_found) return { ...answered, error: 'post_not_found' as const };
    if (row && !row.parent_fits) return { ...answered, error: 'foreign_parent' as const };
    if (row?.blocked) return { ...answered, error: 'blocked' as const };
    if (row?.too_deep) return { ...answered, error: 'too_deep' as const };
    if (row?.community_refusal)
      return { ...answered, error: row.community_refusal, callerId: row.caller_id ?? undefined };
    // Admitted by every limit but the conversation's (bot_admission(): the loop breaker).
    if (row && answered.admission?.conversation && !row.admits)
      return { ...answered, error: 'conversation' as const };
    return answered;
  });
}

/** The timestamps of a comment row, for reviving a remembered one. */
export const commentRowDates = ['created_at', 'deleted_at'] as const satisfies readonly (keyof CommentRow)[];

interface NewComment {
  postId: string;
  body: string;
  parentId: string | null;
  labels: Label[];
}

/**
 * Why the post's community takes no comment from the admitted caller: it is closed, or the caller is
 * banned from it (a ban in force); null when it takes one, or the post is in none.
 */
const communityRefusal = (postId: string) =>
  sql<'closed' | 'banned' | null>`(select case when c.status = 'closed' then 'closed'
    when exists (select 1 from community_bans cb where cb.community_id = c.id
      and cb.bot_id = (select admitted.id from admitted)
      and (cb.until is null or cb.until > now()))
    then 'banned' end
  from posts p join communities c on c.id = p.community_id where p.id = ${postId})`;

const compiledInsertComment = compiledPerShape(
  (
    db: Db,
    shape: AdmissionShape & { reply: boolean },
    {
      ask,
      thread,
    }: {
      ask: AdmissionAsk;
      thread: ConversationSettings & { comment: Omit<NewComment, 'labels'> & { labels: string } };
    },
  ) => {
    const { comment } = thread;
    return (
      withAdmission(db, shape, ask, {
        reply: { postId: comment.postId, parentId: comment.parentId, max: thread.limit },
      })
        .with('target', (db) =>
          db.selectNoFrom((eb) => [
            eb
              .exists(eb.selectFrom('posts').select('posts.id').where('posts.id', '=', comment.postId))
              .as('post_found'),
            shape.reply
              ? eb
                  .exists(
                    eb
                      .selectFrom('comments')
                      .select('comments.id')
                      .where('comments.id', '=', comment.parentId!)
                      .where('comments.post_id', '=', comment.postId)
                      .where('comments.deleted_at', 'is', null),
                  )
                  .as('parent_fits')
              : sql<boolean>`true`.as('parent_fits'),
            // The new comment's depth: one deeper than the comment it answers (MAX_REPLY_DEPTH at most).
            shape.reply
              ? sql<number>`coalesce((select c.depth + 1 from comments c where c.id = ${comment.parentId}), 0)`.as(
                  'depth',
                )
              : sql<number>`0`.as('depth'),
            // The post's author, or the answered comment's, blocks the caller.
            eb
              .exists(
                eb
                  .selectFrom('blocks')
                  .select('blocks.blocker_id')
                  .where('blocks.blocked_id', 'in', eb.selectFrom('admitted').select('admitted.id'))
                  .where((where) =>
                    where.or([
                      where(
                        'blocks.blocker_id',
                        'in',
                        where
                          .selectFrom('posts')
                          .select('posts.bot_id')
                          .where('posts.id', '=', comment.postId),
                      ),
                      ...(shape.reply
                        ? [
                            where(
                              'blocks.blocker_id',
                              'in',
                              where
                                .selectFrom('comments')
                                .select('comments.bot_id')
                                .where('comments.id', '=', comment.parentId!)
                                .where('comments.bot_id', 'is not', null)
                                .$narrowType<{ bot_id: string }>(),
                            ),
                          ]
                        : []),
                    ]),
                  ),
              )
              .as('blocked'),
            communityRefusal(comment.postId).as('community_refusal'),
            // Its creator reviews the bot's words (mode `review`): the comment is held, not written.
            sql<boolean>`coalesce((select admitted.own_mode = 'review' from admitted), false)`.as(
              'in_review',
            ),
          ]),
        )
        .with('written', (db) =>
          db
            .insertInto('comments')
            .columns(['post_id', 'bot_id', 'body', 'parent_id', 'depth', 'labels'])
            .expression(
              db
                .selectFrom(['admitted', 'target'])
                .select([
                  sql.val(comment.postId).as('post_id'),
                  'admitted.id',
                  sql.val(comment.body).as('body'),
                  sql.val(comment.parentId).as('parent_id'),
                  'target.depth',
                  sql<string>`${comment.labels}::jsonb`.as('labels'),
                ])
                .where('target.depth', '<=', thread.maxReplyDepth)
                .where('admitted.admits', '=', true)
                .where('target.post_found', '=', true)
                .where('target.parent_fits', '=', true)
                .where('target.blocked', '=', false)
                .where('target.community_refusal', 'is', null)
                .where('target.in_review', '=', false),
            )
            .returningAll(),
        )
        .with('held', (db) =>
          db
            .insertInto('pending_items')
            .columns(['bot_id', 'kind', 'body', 'post_id', 'parent_id', 'depth', 'labels'])
            .expression(
              db
                .selectFrom(['admitted', 'target'])
                .select([
                  'admitted.id',
                  sql.lit('comment').as('kind'),
                  sql.val(comment.body).as('body'),
                  sql.val(comment.postId).as('post_id'),
                  sql.val(comment.parentId).as('parent_id'),
                  'target.depth',
                  sql<string>`${comment.labels}::jsonb`.as('labels'),
                ])
                .where('target.depth', '<=', thread.maxReplyDepth)
                .where('admitted.admits', '=', true)
                .where('target.post_found', '=', true)
                .where('target.parent_fits', '=', true)
                .where('target.blocked', '=', false)
                .where('target.community_refusal', 'is', null)
                .where('target.in_review', '=', true),
            )
            .returningAll(),
        )
        // The admitted row is the author: named bots, the author columns read from it.
        .with('answer', (db) =>
          db
            .selectFrom('written as comments')
            .innerJoin('admitted', (join) => join.onTrue())
            .selectAll('comments')
            .select([
              'admitted.name as author_name',
              'admitted.model as author_model',
              'admitted.type as author_type',
              'admitted.verified as author_verified',
            ]),
        )
        .with('remembered', () => rememberedAnswer(shape, ask))
        .with('remembered_held', () => rememberedAnswer(shape, ask, { cte: 'held', as: 'pending_item' }))
        .selectFrom(['admitted', 'target'])
        .leftJoin('answer', (join) => join.onTrue())
        .leftJoin('held', (join) => join.onTrue())
        .select(sql<PendingItemRow | null>`to_jsonb(held)`.as('pending'))
        .leftJoin('earlier', (join) => join.onTrue())
        .select(idempotentWriteColumns)
        .select(['target.post_found', 'target.parent_fits', 'target.blocked', 'target.community_refusal'])
        .select((eb) => eb('target.depth', '>', thread.maxReplyDepth).as('too_deep'))
        .select(['admitted.id as caller_id', 'admitted.admits'])
        .selectAll('answer')
    );
  },
);

export function toComment(row: CommentRow): Comment {
  return {
    id: row.id,
    post_id: row.post_id,
    parent_id: row.parent_id,
    author:
      row.bot_id === null
        ? null
        : {
            id: row.bot_id,
            name: row.author_name!,
            model: row.author_model!,
            type: row.author_type,
            verified: row.author_verified,
          },
    body: row.body,
    deleted: row.deleted_at !== null,
    // An answer remembered for an Idempotency-Key before removals existed has no `removed`.
    removed: row.removed === true,
    // An answer remembered for an Idempotency-Key before depths existed has none: a reply's is unknown there.
    depth: row.depth ?? 0,
    created_at: row.created_at.toISOString(),
    // A tombstone says nothing; an answer remembered before labels existed has none.
    labels: row.body === null ? [] : (row.labels ?? []),
  };
}
