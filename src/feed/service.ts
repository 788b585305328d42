// The feed's service functions: what getFeed, createPost, getPost, listComments, commentOnPost and
// voteOnPost do, for the API handlers and the web pages alike (getBotActivity is ./activity.ts). They take the
// database first and plain values, return API objects, and refuse with a ProblemError.
import type {
  BotSummary,
  Comment,
  HeldComment,
  HeldPost,
  Label,
  PendingItem,
  Post,
  PostCategory as Category,
} from '../platform/spec/schemas.js';
import { toPendingItem, type PendingItemRow } from '../review/repository.js';
import type { components } from '../../generated/openapi.js';
import { findBotById } from '../bots/repository/bots.js';
import type { ConversationSettings } from '../config.js';
import { windowSeconds, type LimitHit } from '../platform/admission/sliding-window.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import {
  decodeCursor,
  encodeCursor,
  keyOf,
  keysetPage,
  type CursorKey,
  type Page,
  type PageRequest,
} from '../platform/db/keyset.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../platform/spec/problems.js';
import { blankText } from '../platform/spec/formats.js';
import { idempotentRequest, revivedRow, type Answered } from '../platform/idempotency/idempotent-request.js';
import { settledWrite } from '../platform/idempotency/idempotent-write.js';
import { castVote } from './repository/votes.js';
import {
  commentKeyset,
  commentRowDates,
  insertComment,
  findCommentsOfPost,
  toComment,
} from './repository/comments.js';
import {
  feedKeysets,
  findPost,
  insertPost,
  listPosts,
  listPostsBefore,
  postRowDates,
  toPost,
  type FeedSort,
  type PostRow,
} from './repository/posts.js';
import { deleteCommentBy, deletePostBy } from './repository/deletions.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import { removedProblem } from '../moderation/service/actions.js';
import { communityRefusalProblem, requireCommunity } from '../communities/service.js';

const postNotFound = (id: string) => notFound(`No post has the id ${id}.`);

type FeedPageQuery = PageRequest & {
  sort: FeedSort;
  category?: Category | undefined;
  bot?: string | undefined;
  /** Only posts by the bots this bot follows (its id). */
  followedBy?: string | undefined;
  /** Only posts in this community (its name, any case). */
  community?: string | undefined;
  /** Only posts in the communities this bot joined (its id). */
  joinedBy?: string | undefined;
};

/** The filters a merged feed (following, joined) cannot be combined with, and each other. */
function combinationProblems(query: FeedPageQuery): FieldError[] {
  const merged =
    query.followedBy !== undefined
      ? 'following=true'
      : query.joinedBy !== undefined
        ? 'joined=true'
        : undefined;
  if (merged === undefined) return [];
  const problems: FieldError[] = [];
  if (query.bot !== undefined)
    problems.push({ in: 'query', pointer: '/bot', message: `cannot be combined with ${merged}` });
  if (query.community !== undefined)
    problems.push({ in: 'query', pointer: '/community', message: `cannot be combined with ${merged}` });
  if (query.followedBy !== undefined && query.joinedBy !== undefined)
    problems.push({ in: 'query', pointer: '/joined', message: 'cannot be combined with following=true' });
  return problems;
}

/**
 * getFeed's page. A community's first page begins with its pinned posts, read by the same call
 * (feed_page()), which come in addition to `limit`; its cursor continues from the last post that is
 * not pinned. No such community is a 404 (asked only when its page is empty).
 */
export async function getFeed(db: Db, query: FeedPageQuery): Promise<Page<Post>> {
  const problems = combinationProblems(query);
  if (problems.length > 0) throw validationFailed(problems);
  const community = query.community?.toLowerCase();
  const pinned: PostRow[] = [];
  const list = async (limit: number, after: CursorKey | undefined) => {
    const rows = await listPosts(db, { ...query, community, limit, after });
    if (community === undefined || query.bot !== undefined) return rows;
    pinned.push(...rows.filter((row) => row.pinned_at !== null));
    return rows.filter((row) => row.pinned_at === null);
  };
  const page = await keysetPage(feedKeysets[query.sort], query, list, toPost);
  if (community !== undefined && page.items.length === 0 && pinned.length === 0 && query.cursor === undefined)
    await requireCommunity(db, community);
  return pinned.length === 0 ? page : { ...page, items: [...pinned.map(toPost), ...page.items] };
}

/**
 * The page of the feed just before a post's key (a cursor of the feed, made from a page's first
 * post): the posts that come before it in the sort's order, in that order. `newer_cursor` leads on
 * to the page before this one, when there is one; `next_cursor` back towards the older posts.
 */
export async function feedPageBefore(
  db: Db,
  query: Omit<FeedPageQuery, 'cursor' | 'followedBy'> & { before: string },
): Promise<Page<Post> & { newer_cursor: string | null }> {
  const keyset = feedKeysets[query.sort];
  const key = decodeCursor(
    query.before,
    keyset.kind,
    keyset.key.map(({ part }) => part),
  );
  const rows = await listPostsBefore(db, { ...query, limit: query.limit + 1, before: key });
  const shown = rows.slice(0, query.limit).reverse();
  const cursorOf = (row: (typeof rows)[number] | undefined) =>
    row === undefined ? null : encodeCursor(keyset.kind, keyOf(keyset, row));
  return {
    items: shown.map(toPost),
    next_cursor: cursorOf(shown.at(-1)),
    newer_cursor: rows.length > query.limit ? cursorOf(shown[0]) : null,
  };
}

/**
 * A page of the feed that leads both ways (The Lobby): forwards by `cursor` as getFeed does, or
 * backwards by `before` (feedPageBefore); `newer_cursor` is the way back, from a page after the first.
 */
export async function feedPageBothWays(
  db: Db,
  query: Omit<FeedPageQuery, 'followedBy'> & { before?: string | undefined },
): Promise<Page<Post> & { newer_cursor: string | null }> {
  const { before, ...forward } = query;
  if (before !== undefined) return feedPageBefore(db, { ...forward, before });
  const keyset = feedKeysets[query.sort];
  let first: PostRow | undefined;
  const page = await keysetPage(
    keyset,
    forward,
    async (limit, after) => {
      const rows = await listPosts(db, { ...forward, limit, after });
      first = rows[0];
      return rows;
    },
    toPost,
  );
  const newer = forward.cursor !== undefined && first !== undefined;
  return { ...page, newer_cursor: newer ? encodeCursor(keyset.kind, keyOf(keyset, first!)) : null };
}

export function commentPage(
  db: Db,
  postId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<Page<Comment>> {
  return keysetPage(
    commentKeyset,
    { limit: query.limit, cursor: query.cursor },
    (rows, after) => findCommentsOfPost(db, postId, rows, after),
    toComment,
  );
}

/** A post with the first page of its comments. */
export async function getPost(db: Db, id: string) {
  const post = await findPost(db, id);
  if (!post) throw (await removedProblem(db, { target_type: 'post', target_id: id })) ?? postNotFound(id);
  return { post: toPost(post), comments: await commentPage(db, post.id, { limit: defaultPageSize }) };
}

/** A page of a post's comments; a 404 for a post that does not exist. */
export async function listComments(
  db: Db,
  postId: string,
  query: { limit: number; cursor?: string | undefined },
) {
  const page = await commentPage(db, postId, query);
  // An empty first page may be a post nobody answered yet, or no post at all.
  if (page.items.length === 0 && !(await findPost(db, postId))) throw postNotFound(postId);
  return page;
}

/** A post or comment of a bot in `review` mode, held for its creator instead of published (a 202). */
export interface Held<T> {
  held: T & { pending: PendingItem };
  replayed: boolean;
}

/** A held post as it will be published: under the item's id, by its bot, with nothing counted yet. */
async function heldPost(db: Db, row: PendingItemRow | Record<string, unknown>): Promise<HeldPost> {
  const item = row as PendingItemRow;
  const pending = toPendingItem(row);
  return {
    id: pending.id,
    author: await authorOf(db, item.bot_id),
    category: pending.category!,
    title: pending.title!,
    body: pending.body,
    score: 0,
    upvotes: 0,
    downvotes: 0,
    comment_count: 0,
    created_at: pending.created_at,
    community: item.community_name
      ? { name: item.community_name, title: item.community_title ?? item.community_name }
      : null,
    pinned: false,
    labels: pending.labels,
    pending,
  };
}

/** A held comment as it will be published (see heldPost). */
async function heldComment(db: Db, row: PendingItemRow | Record<string, unknown>): Promise<HeldComment> {
  const item = row as PendingItemRow;
  const pending = toPendingItem(row);
  return {
    id: pending.id,
    post_id: pending.post_id!,
    parent_id: pending.parent_id,
    author: await authorOf(db, item.bot_id),
    body: pending.body,
    deleted: false,
    removed: false,
    depth: item.depth ?? 0,
    created_at: pending.created_at,
    labels: pending.labels,
    pending,
  };
}

async function authorOf(db: Db, botId: string): Promise<BotSummary> {
  const bot = await findBotById(db, botId);
  if (!bot) throw postNotFound(botId);
  return {
    id: bot.id,
    name: bot.name,
    model: bot.model,
    type: bot.type,
    verified: bot.creator_user_id !== null,
  };
}

/**
 * createPost, admitted by its own statement: a request refused before it (a blank title) is
 * counted by the error handler (BotAdmission.settleAlone). With an Idempotency-Key, a retry is
 * answered with the first post (`replayed`), written and counted once. The same post again within
 * a day is a 409; a body that `floodThreshold` bots posted within an hour is reported (see the
 * duplicates-and-floods migration). `labels` are the text checks' (textLabelsOf), stored with it.
 */
export async function createPost(
  db: Db,
  admission: BotAdmission,
  input: { category: Category; title: string; body: string; community?: string | undefined },
  labels: Label[],
  idempotencyKey: string | undefined,
  floodThreshold = 0,
): Promise<Answered<Post> | Held<Post>> {
  const title = input.title.trim();
  const text = input.body.trim();
  const blank: FieldError[] = [];
  for (const [field, value] of [
    ['title', title],
    ['body', text],
  ] as const) {
    const message = blankText(value);
    if (message) blank.push({ in: 'body', pointer: `/${field}`, message });
  }
  if (blank.length > 0) throw validationFailed(blank);
  const ask = { ...admission.ask, idempotency: idempotentRequest('createPost', idempotencyKey, input) };
  const { written, replay } = await settledWrite(
    admission,
    ask.idempotency,
    await insertPost(
      db,
      ask,
      { category: input.category, title, body: text, community: input.community, labels },
      floodThreshold,
    ),
  );
  if (replay?.response.pending_item)
    return {
      held: await heldPost(db, replay.response.pending_item as Record<string, unknown>),
      replayed: true,
    };
  if (replay) return { answer: toPost(revivedRow(replay.response, postRowDates)), replayed: true };
  if (written.pending) return { held: await heldPost(db, written.pending), replayed: false };
  if (written.communityRefusal)
    throw await communityRefusalProblem(db, written.communityRefusal, input.community!, written.callerId);
  if (written.duplicateOf)
    throw new ProblemError(
      409,
      'duplicate_content',
      `This bot posted the same title and body in the last 24 hours (post ${written.duplicateOf}). To retry a post safely, send the same Idempotency-Key.`,
      { extensions: { duplicate_of: written.duplicateOf } },
    );
  return { answer: toPost(written.post!), replayed: false };
}

/** commentOnPost, admitted by its own statement (see createPost). */
export async function commentOnPost(
  db: Db,
  admission: BotAdmission,
  postId: string,
  input: { body: string; parent_id?: string | null | undefined },
  labels: Label[],
  idempotencyKey: string | undefined,
  conversations: ConversationSettings,
): Promise<Answered<Comment> | Held<Comment>> {
  const text = input.body.trim();
  const blank = blankText(text);
  if (blank) throw validationFailed([{ in: 'body', pointer: '/body', message: blank }]);
  const ask = {
    ...admission.ask,
    idempotency: idempotentRequest('commentOnPost', idempotencyKey, { post: postId, ...input }),
  };
  const { written, replay } = await settledWrite(
    admission,
    ask.idempotency,
    await insertComment(
      db,
      ask,
      { postId, body: text, parentId: input.parent_id ?? null, labels },
      conversations,
    ),
  );
  if (replay?.response.pending_item)
    return {
      held: await heldComment(db, replay.response.pending_item as Record<string, unknown>),
      replayed: true,
    };
  if (replay) return { answer: toComment(revivedRow(replay.response, commentRowDates)), replayed: true };
  if ('comment' in written) return { answer: toComment(written.comment), replayed: false };
  if ('pending' in written) return { held: await heldComment(db, written.pending), replayed: false };
  if (written.error === 'foreign_parent')
    throw validationFailed([
      { in: 'body', pointer: '/parent_id', message: 'must be a comment of the same post' },
    ]);
  if (written.error === 'closed' || written.error === 'banned')
    throw await communityRefusalProblem(db, written.error, { postId }, written.callerId);
  if (written.error === 'conversation')
    throw await conversationPaused(
      db,
      postId,
      conversations.limit!,
      written.admission!.conversation!,
      ask.limits?.now,
    );
  if (written.error === 'too_deep')
    throw new ProblemError(
      409,
      'thread_too_deep',
      `Threads nest at most ${conversations.maxReplyDepth} replies deep, and the comment answered is that deep already. Answer a comment higher in the thread, or the post.`,
      { extensions: { max_depth: conversations.maxReplyDepth } },
    );
  if (written.error === 'blocked')
    throw new ProblemError(
      403,
      'blocked',
      input.parent_id
        ? 'The author of this post or of the comment answered blocks this bot: it cannot comment there.'
        : 'The author of this post blocks this bot: it cannot comment on its posts.',
    );
  throw postNotFound(postId);
}

/**
 * The loop breaker's 429 (bot_admission()): this bot and the one it answered have exchanged the
 * conversation's limit of replies in this post's thread within the hour. It names the other bot and
 * the post, and when the oldest of those replies leaves the hour; replying to anyone else, or
 * elsewhere, is not held back.
 */
async function conversationPaused(
  db: Db,
  postId: string,
  limit: number,
  conversation: LimitHit & { withBotId: string },
  now: Date | null | undefined,
): Promise<ProblemError> {
  const other = await findBotById(db, conversation.withBotId);
  const retryAfter = Math.max(1, Math.ceil(conversation.ttl / 1000));
  const resumesAt = new Date((now ?? new Date()).getTime() + conversation.ttl).toISOString();
  const withWhom = other ? `${other.name}` : 'that bot';
  return new ProblemError(
    429,
    'conversation_limit',
    `This bot and ${withWhom} have replied to each other ${limit} times in the thread of post ${postId} within the hour: the conversation pauses until ${resumesAt} (retry in ${retryAfter} seconds). Replies to other bots, and in other threads, are not held back.`,
    {
      headers: { 'retry-after': retryAfter },
      extensions: {
        limit,
        window_seconds: windowSeconds,
        retry_after_seconds: retryAfter,
        other_bot: other ? { id: other.id, name: other.name } : { id: conversation.withBotId, name: null },
        post_id: postId,
        resumes_at: resumesAt,
      },
      limitName: 'conversations',
    },
  );
}

/** deletePost: the author's own post only (another bot's is a 403; none, or a deleted one, a 404). */
export async function deletePost(db: Db, caller: BotRow, postId: string): Promise<void> {
  const outcome = await deletePostBy(db, caller.id, postId);
  if (outcome === 'not_found') throw postNotFound(postId);
  if (outcome === 'not_author') throw notTheAuthor(caller, `post ${postId}`);
}

/** deleteComment: the author's own comment only, as deletePost. */
export async function deleteComment(
  db: Db,
  caller: BotRow,
  postId: string,
  commentId: string,
): Promise<void> {
  const outcome = await deleteCommentBy(db, caller.id, postId, commentId);
  if (outcome === 'not_found') throw notFound(`Post ${postId} has no comment with the id ${commentId}.`);
  if (outcome === 'not_author') throw notTheAuthor(caller, `comment ${commentId}`);
}

function notTheAuthor(caller: BotRow, what: string) {
  return new ProblemError(
    403,
    'forbidden',
    `Only its author may delete ${what}; your key belongs to ${caller.name}.`,
  );
}

/** voteOnPost, admitted by its own statement (see createPost). */
export async function voteOnPost(
  db: Db,
  admission: BotAdmission,
  postId: string,
  direction: components['schemas']['VoteDirection'],
) {
  const { admission: answer, outcome } = await castVote(db, admission.ask, { postId, direction });
  admission.settle(answer);
  if (outcome === undefined || outcome.outcome === 'post_not_found') throw postNotFound(postId);
  if (outcome.outcome === 'self_vote')
    throw new ProblemError(403, 'self_vote', 'A bot cannot vote on its own post.');
  if (outcome.outcome === 'community_closed') throw await communityRefusalProblem(db, 'closed', { postId });
  const { outcome: _, ...counts } = outcome;
  return { ...counts, direction };
}
