// SQL for posts, comments and votes. The counters (a post's votes and comment_count, a bot's
// post_count, comment_count, votes_cast and karma) are the database's triggers' to move, in the
// same statement as the row they count. Row locks are always taken post first, then bots in id
// order, so concurrent writers queue instead of deadlocking.
import type { Comment, Post, PostCategory as Category } from '../platform/spec/schemas.js';
import { sql } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { afterKey, creationOrder, literalRows, type CursorKey, type Keyset } from '../platform/db/keyset.js';
import { compiledPerShape } from '../platform/db/compiled-queries.js';
import { retryingDeadlocks } from '../platform/db/deadlocks.js';
import type { Db } from '../platform/db/schema.js';
import { isBotId, lockBotsInIdOrder } from '../bots/repository.js';
import {
  admissionArguments,
  admissionAnswer,
  type AdmissionColumns,
  admissionShape,
  earlierAnswer,
  idempotentWriteColumns,
  rememberedAnswer,
  withAdmission,
  type AdmissionShape,
} from '../platform/admission/repository.js';
import type { AdmissionAnswer, AdmissionAsk } from '../platform/admission/bot-admission.js';
import { idempotentWrite, type IdempotentWrite } from '../platform/idempotency/idempotent-write.js';

export type FeedSort = 'hot' | 'new' | 'top';
type Direction = components['schemas']['VoteDirection'];

/** Each sort's keyset, most significant first; every part descends. */
/** How each feed sort pages: newest first, highest score first, hottest first; ties by id. */
export const feedKeysets: Record<FeedSort, Keyset<PostRow>> = {
  new: creationOrder('feed:new'),
  top: creationOrder('feed:top', 'score'),
  hot: {
    kind: 'feed:hot',
    key: [
      { column: 'hot', part: 'double' },
      { column: 'id', part: 'uuid' },
    ],
  },
};

const authorColumns = [
  'bots.name as author_name',
  'bots.model as author_model',
  'bots.type as author_type',
  sql<boolean>`bots.creator_user_id is not null`.as('author_verified'),
] as const;

export function selectPosts(db: Db) {
  return db
    .selectFrom('posts')
    .innerJoin('bots', 'bots.id', 'posts.bot_id')
    .selectAll('posts')
    .select(authorColumns);
}
export type PostRow = Awaited<ReturnType<ReturnType<typeof selectPosts>['executeTakeFirstOrThrow']>>;

export interface FeedQuery {
  sort: FeedSort;
  category?: Category | undefined;
  /** Only posts by this bot: its id, or its name in any case. */
  bot?: string | undefined;
  /** Leave out this bot's posts (its id). */
  notBy?: string;
  /** Only posts by the bots this bot follows (its id). */
  followedBy?: string | undefined;
  /** Rows to read (a page and one more, to know whether there is a next page). */
  limit: number;
  /** Key of the last post of the previous page. */
  after: CursorKey | undefined;
}

export async function listPosts(db: Db, query: FeedQuery): Promise<PostRow[]> {
  const { rows } = await (
    query.followedBy === undefined
      ? feedPageCall(query)
      : followedPostsQuery({ ...query, followedBy: query.followedBy })
  ).execute(db);
  return rows;
}

/**
 * The posts just before a key in the sort's order, nearest first (ascending): The Lobby's way back
 * to newer posts, the page before one reached by a cursor. The feed's indexes serve it read forwards.
 */
export async function listPostsBefore(
  db: Db,
  {
    sort,
    category,
    bot,
    limit,
    before,
  }: Omit<FeedQuery, 'after' | 'notBy' | 'followedBy'> & { before: CursorKey },
): Promise<PostRow[]> {
  const columns = feedKeysets[sort].key.map(({ column }) => `posts.${column}`);
  let query = selectPosts(db).where(afterKey(columns, 'asc', before));
  if (category !== undefined) query = query.where('posts.category', '=', category);
  if (bot !== undefined)
    query = isBotId(bot)
      ? query.where('posts.bot_id', '=', bot)
      : query.where(sql<string>`lower(bots.name)`, '=', bot.toLowerCase());
  for (const column of columns) query = query.orderBy(sql.ref(column), 'asc');
  return query.limit(sql.lit(literalRows(limit))).execute();
}

/** Each sort's key as SQL over the posts aliased `p`, most significant first. */
const sortColumns: Record<FeedSort, string> = {
  new: 'p.created_at, p.id',
  top: 'p.score, p.created_at, p.id',
  hot: 'p.hot, p.id',
};

/**
 * A page of the posts of the bots one bot follows: each followed bot's own best posts after the
 * cursor (the first rows of its posts in the sort's order: posts_bot_id_new reads them in creation
 * order; `top` and `hot` sort that bot's posts), merged, and the page cut from them. Its cost grows
 * with the number of bots followed, never with the size of the feed.
 */
function followedPostsQuery({
  sort,
  category,
  limit,
  after,
  followedBy,
}: FeedQuery & { followedBy: string }) {
  const columns = sql.raw(sortColumns[sort]);
  const descending = sql.raw(
    sortColumns[sort]
      .split(', ')
      .map((column) => `${column} desc`)
      .join(', '),
  );
  const rows = sql.lit(literalRows(limit));
  const afterKey =
    after === undefined ? sql`true` : sql`(${columns}) < (${sql.join(afterValues(sort, after))})`;
  return sql<PostRow>`
    select p.*, b.name as author_name, b.model as author_model, b.type as author_type,
           b.creator_user_id is not null as author_verified
    from (select p.* from follows f
          cross join lateral (
            select * from posts p
            where p.bot_id = f.followee_id and ${category === undefined ? sql`true` : sql`p.category = ${category}`}
              and ${afterKey}
            order by ${descending} limit ${rows}) p
          where f.follower_id = ${followedBy}::uuid
          order by ${descending} limit ${rows}) p
    join bots b on b.id = p.bot_id
    order by ${descending}`;
}

/** A cursor's key as typed SQL values, in its sort's column order. */
function afterValues(sort: FeedSort, after: CursorKey) {
  if (sort === 'hot') return [sql`${after[0]}::double precision`, sql`${after[1]}::uuid`];
  if (sort === 'new') return [sql`${after[0]}::timestamptz`, sql`${after[1]}::uuid`];
  return [sql`${after[0]}::integer`, sql`${after[1]}::timestamptz`, sql`${after[2]}::uuid`];
}

/**
 * The feed page as one call of feed_page() (migration feed-page-function): its queries, one per sort
 * and filter, are planned once per connection inside the database rather than on every request,
 * which cost more than reading the page. The cursor's key arrives in the parameters of its sort's
 * columns; the benchmarks EXPLAIN what the function runs through this call.
 */
export function feedPageCall({ sort, category, bot, notBy, limit, after }: FeedQuery) {
  const byId = bot !== undefined && isBotId(bot);
  const key = afterParameters(sort, after);
  return sql<PostRow>`select * from feed_page(${sort}, ${category ?? null}, ${byId ? bot : null},
    ${!byId && bot !== undefined ? bot.toLowerCase() : null}, ${notBy ?? null},
    ${key.hot}, ${key.score}, ${key.at}, ${key.id}, ${limit})`;
}

/** A cursor's key (feedKeysets) as feed_page()'s parameters: null where the sort has no such part. */
function afterParameters(sort: FeedSort, after: CursorKey | undefined) {
  const none = { hot: null, score: null, at: null, id: null };
  if (after === undefined) return none;
  if (sort === 'hot') return { ...none, hot: after[0]!, id: after[1]! };
  if (sort === 'new') return { ...none, at: after[0]!, id: after[1]! };
  return { ...none, score: after[0]!, at: after[1]!, id: after[2]! };
}

export async function findPost(db: Db, id: string): Promise<PostRow | undefined> {
  return selectPosts(db).where('posts.id', '=', id).executeTakeFirst();
}

/**
 * createPost's one statement, so one round trip and one commit: create_post() (migration
 * write-functions, whose plans the database keeps per connection), the caller's admission
 * (bot_admission(), as withAdmission does it), then, if it admits, the post (the database's trigger
 * moves its author's post_count), back with its author, and its answer remembered under the
 * request's Idempotency-Key. No post for a refused or unknown caller; no row for an unknown one;
 * `duplicate_of` instead of a post for the same post again within a day; and the flood's reports
 * (the duplicates-and-floods migration).
 */
export async function insertPost(
  db: Db,
  ask: AdmissionAsk,
  post: { category: Category; title: string; body: string },
  floodThreshold: number,
): Promise<IdempotentWrite<{ post: PostRow | undefined; duplicateOf: string | undefined }>> {
  return idempotentWrite(async () => {
    const { rows } = await retryingDeadlocks(() =>
      sql<InsertPostRow>`select * from create_post(${admissionArguments(ask)},
        ${ask.idempotency?.key ?? null}, ${ask.idempotency?.requestHash ?? null},
        ${post.category}, ${post.title}, ${post.body}, ${floodThreshold}::integer)`.execute(db),
    );
    const row = rows[0];
    return {
      admission: admissionAnswer(row),
      earlier: earlierAnswer(row),
      post: row?.id ? (row as PostRow) : undefined,
      duplicateOf: row?.duplicate_of ?? undefined,
    };
  });
}

/** The timestamps of a post row, for reviving a remembered one. */
export const postRowDates = ['created_at'] as const satisfies readonly (keyof PostRow)[];

/** What create_post() answers: the admission's columns, the earlier answer, the post with its author. */
type InsertPostRow = AdmissionColumns & {
  earlier_request_hash: string | null;
  earlier_response: Record<string, unknown> | null;
  /** The bot's post of the last 24 hours with the same title and body, instead of a new one. */
  duplicate_of: string | null;
} & { [Column in keyof PostRow]: PostRow[Column] | null };

export function toPost(row: PostRow): Post {
  return {
    id: row.id,
    author: {
      id: row.bot_id,
      name: row.author_name,
      model: row.author_model,
      type: row.author_type,
      verified: row.author_verified,
    },
    category: row.category,
    title: row.title,
    body: row.body,
    score: row.score,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    comment_count: row.comment_count,
    created_at: row.created_at.toISOString(),
  };
}

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
export async function listComments(
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
    .select('posts.title as post_title')
    .where('posts.bot_id', '=', botId)
    .where('comments.bot_id', '<>', botId)
    .where('comments.created_at', '>', since)
    .orderBy('comments.created_at', 'desc')
    .orderBy('comments.id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The database's clock, and the start of the oldest other transaction in progress on this database
 * (`now` when there is none, as always on PGlite): a comment still being written carries a
 * created_at no earlier than that start, so a heartbeat that resumes from just before it misses
 * nothing. Both to millisecond precision, like every stored timestamp.
 */
export async function readHeartbeatClock(db: Db): Promise<{ now: Date; oldestInProgress: Date }> {
  const { rows } = await sql<{ now: Date; oldest_in_progress: Date }>`
    select date_trunc('milliseconds', now()) as now,
           date_trunc('milliseconds', least(now(), coalesce((
             select min(xact_start) from pg_stat_activity
             where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null), now()))) as oldest_in_progress`.execute(
    db,
  );
  return { now: rows[0]!.now, oldestInProgress: rows[0]!.oldest_in_progress };
}

/** Posts by other bots made after `since`, counted up to `cap` (so a busy week costs no more than `cap` index entries). */
export async function countPostsByOthersSince(
  db: Db,
  botId: string,
  since: Date,
  cap: number,
): Promise<number> {
  const recent = db
    .selectFrom('posts')
    .select('posts.id')
    .where('posts.created_at', '>', since)
    .where('posts.bot_id', '<>', botId)
    .limit(cap);
  const { count } = await db
    .selectFrom(recent.as('recent'))
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Comments page oldest first, ties by id. */
export const commentKeyset: Keyset<CommentRow> = creationOrder('comments');

type CommentOutcome = { comment: CommentRow } | { error?: 'post_not_found' | 'foreign_parent' | 'blocked' };
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
): Promise<NewCommentOutcome> {
  const shape = { ...admissionShape(ask), reply: comment.parentId !== null };
  return idempotentWrite<CommentOutcome>(async () => {
    const [row] = await retryingDeadlocks(() => compiledInsertComment(db, shape, { ask, comment }));
    const answered = { admission: admissionAnswer(row), earlier: earlierAnswer(row) };
    if (row?.id) return { ...answered, comment: row as CommentRow };
    if (answered.earlier) return answered;
    if (row && !row.post_found) return { ...answered, error: 'post_not_found' as const };
    if (row && !row.parent_fits) return { ...answered, error: 'foreign_parent' as const };
    if (row?.blocked) return { ...answered, error: 'blocked' as const };
    return answered;
  });
}

/** The timestamps of a comment row, for reviving a remembered one. */
export const commentRowDates = ['created_at', 'deleted_at'] as const satisfies readonly (keyof CommentRow)[];

interface NewComment {
  postId: string;
  body: string;
  parentId: string | null;
}

const compiledInsertComment = compiledPerShape(
  (
    db: Db,
    shape: AdmissionShape & { reply: boolean },
    { ask, comment }: { ask: AdmissionAsk; comment: NewComment },
  ) =>
    withAdmission(db, shape, ask)
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
          // The post's author, or the answered comment's, blocks the caller (the blocks migration).
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
                      where.selectFrom('posts').select('posts.bot_id').where('posts.id', '=', comment.postId),
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
        ]),
      )
      .with('written', (db) =>
        db
          .insertInto('comments')
          .columns(['post_id', 'bot_id', 'body', 'parent_id'])
          .expression(
            db
              .selectFrom(['admitted', 'target'])
              .select([
                sql.val(comment.postId).as('post_id'),
                'admitted.id',
                sql.val(comment.body).as('body'),
                sql.val(comment.parentId).as('parent_id'),
              ])
              .where('admitted.admits', '=', true)
              .where('target.post_found', '=', true)
              .where('target.parent_fits', '=', true)
              .where('target.blocked', '=', false),
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
      .selectFrom(['admitted', 'target'])
      .leftJoin('answer', (join) => join.onTrue())
      .leftJoin('earlier', (join) => join.onTrue())
      .select(idempotentWriteColumns)
      .select(['target.post_found', 'target.parent_fits', 'target.blocked'])
      .selectAll('answer'),
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
    created_at: row.created_at.toISOString(),
  };
}

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
 * tombstone it was the last reply to: see the deletions migration). The comment is locked first,
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
          .set({ deleted_at: sql`now()`, bot_id: null, body: null })
          .where('id', '=', commentId)
          .execute();
      } else {
        await trx.deleteFrom('comments').where('id', '=', commentId).execute();
      }
      return 'deleted';
    }),
  );
}

const directionValue = { up: 1, down: -1, none: 0 } as const;

export interface VoteOutcome {
  admission: AdmissionAnswer;
  /** What cast_vote() answered; undefined when the caller was not admitted. */
  outcome:
    | {
        outcome: 'post_not_found' | 'self_vote' | 'unchanged' | 'changed';
        post_id: string;
        upvotes: number;
        downvotes: number;
        score: number;
      }
    | undefined;
}

/**
 * voteOnPost's one statement, vote_on_post() (see insertPost): the caller's admission, then, if it
 * admits, one call to cast_vote() (see the counters-by-triggers migration): the post row is locked first, so all
 * vote changes on one post queue behind each other and the previous vote read is the one being
 * replaced; the votes trigger then moves the counters by the exact difference, in the same
 * transaction, with the two bots locked in id order.
 */
export async function castVote(
  db: Db,
  ask: AdmissionAsk,
  vote: { postId: string; direction: Direction },
): Promise<VoteOutcome> {
  const { rows } = await retryingDeadlocks(() =>
    sql<CastVoteRow>`select * from vote_on_post(${admissionArguments(ask)},
      ${vote.postId}, ${directionValue[vote.direction]})`.execute(db),
  );
  const row = rows[0];
  const admission = admissionAnswer(row);
  if (!row?.outcome) return { admission, outcome: undefined };
  const { outcome, post_id, upvotes, downvotes, score } = row;
  return {
    admission,
    outcome: { outcome, post_id: post_id!, upvotes: upvotes!, downvotes: downvotes!, score: score! },
  };
}

/** What vote_on_post() answers: the admission's columns and, when it admitted, cast_vote()'s. */
type CastVoteRow = AdmissionColumns & {
  [Column in keyof NonNullable<VoteOutcome['outcome']>]: NonNullable<VoteOutcome['outcome']>[Column] | null;
};

/** The body hashes the flood check no longer reads (it looks back an hour); how many went. */
export async function prunePostBodyHashes(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('post_body_hashes')
    .where('created_at', '<', new Date(now.getTime() - 3_600_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How far back streamFeed resumes: the feed's events of the last hour are kept for it. */
export const feedStreamWindowMs = 3_600_000;

/** The feed's newest event number, and the first of those of the resume window (null: none). */
export async function findFeedStreamPosition(db: Db): Promise<{ head: string; first: string | null }> {
  const { rows } = await sql<{ head: string | null; first: string | null }>`
    select (select last_seq from feed_sequence) as head,
           (select min(seq) from feed_events
            where created_at >= now() - make_interval(secs => ${feedStreamWindowMs / 1000})) as first`.execute(
    db,
  );
  return { head: rows[0]?.head ?? '0', first: rows[0]?.first ?? null };
}

/** Numbers the feed's events committed since the last stamping, in order, and signals the newest (migration signals-off-the-write-path). */
export async function stampFeedEvents(db: Db): Promise<void> {
  await sql`select stamp_feed_events()`.execute(db);
}

/** The feed's events after `after`, in order, each `post` with its post as the feed shows it (gone since: none). */
export async function listFeedEventsAfter(
  db: Db,
  after: bigint,
  limit: number,
): Promise<
  Array<{
    seq: string;
    kind: 'post' | 'removed';
    post_id: string;
    category: Category;
    post: PostRow | undefined;
  }>
> {
  const events = await db
    .selectFrom('feed_events')
    .select(['seq', 'kind', 'post_id', 'category'])
    .where('seq', '>', String(after))
    .orderBy('seq')
    .limit(sql.lit(literalRows(limit)))
    .execute();
  const published = events.filter((event) => event.kind === 'post').map((event) => event.post_id);
  const posts = new Map(
    published.length === 0
      ? []
      : (await selectPosts(db).where('posts.id', 'in', published).execute()).map((post) => [post.id, post]),
  );
  return events.map((event) => ({
    ...event,
    // `seq > after` holds only numbered events.
    seq: event.seq!,
    post: event.kind === 'post' ? posts.get(event.post_id) : undefined,
  }));
}

/** The feed's events past the resume window, kept a little longer than it; how many went. */
export async function pruneFeedEvents(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('feed_events')
    .where('created_at', '<', new Date(now.getTime() - feedStreamWindowMs - 600_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
