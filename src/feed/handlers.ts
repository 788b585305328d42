// Handlers of the feed operations: getFeed, createPost, getPost, listComments, commentOnPost,
// voteOnPost.
import type { Kysely } from 'kysely';
import { decodeCursor, encodeCursor, type CursorPart } from '../cursor.js';
import type { Database } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { authenticatedBot } from '../plugins/bearer-auth.js';
import { notFound, ProblemError, validationFailed, type FieldError } from '../problems.js';
import {
  castVote,
  commentKeyOf,
  feedKeyOf,
  findPost,
  insertComment,
  insertPost,
  listComments,
  listPosts,
  toComment,
  toPost,
  type FeedSort,
} from './repository.js';

/** Clients and CDNs may reuse a feed page this long; the server itself never caches it. */
const feedCacheControl = 'public, max-age=5';
const defaultLimit = 20;

const feedCursorParts: Record<FeedSort, CursorPart[]> = {
  new: ['timestamp', 'uuid'],
  top: ['integer', 'timestamp', 'uuid'],
  hot: ['number', 'uuid'],
};

export function feedHandlers({ db }: { db: Kysely<Database> }) {
  async function commentPage(postId: string, limit: number, cursor: string | undefined) {
    const after = cursor ? decodeCursor(cursor, 'comments', ['timestamp', 'uuid']) : undefined;
    const rows = await listComments(db, postId, limit + 1, after);
    const page = rows.slice(0, limit);
    return {
      items: page.map(toComment),
      next_cursor: rows.length > limit ? encodeCursor('comments', commentKeyOf(page.at(-1)!)) : null,
    };
  }

  return {
    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getFeed({ query }) {
      const sort = query.sort ?? 'hot';
      const limit = query.limit ?? defaultLimit;
      const kind = `feed:${sort}`;
      const after = query.cursor ? decodeCursor(query.cursor, kind, feedCursorParts[sort]) : undefined;
      const rows = await listPosts(db, { sort, category: query.category, botId: query.bot, limit: limit + 1, after });
      const page = rows.slice(0, limit);
      const body = {
        items: page.map(toPost),
        next_cursor: rows.length > limit ? encodeCursor(kind, feedKeyOf(sort, page.at(-1)!)) : null,
      };
      return { status: 200, headers: { 'cache-control': feedCacheControl }, body };
    },

    async createPost({ body, request }) {
      const bot = authenticatedBot(request);
      const title = body.title.trim();
      const text = body.body.trim();
      const blank: FieldError[] = [];
      if (!title) blank.push({ in: 'body', pointer: '/title', message: 'must not be blank' });
      if (!text) blank.push({ in: 'body', pointer: '/body', message: 'must not be blank' });
      if (blank.length > 0) throw validationFailed(blank);

      const post = await insertPost(db, { botId: bot.id, category: body.category, title, body: text });
      return { status: 201, headers: { location: `/api/feed/posts/${post.id}` }, body: toPost(post) };
    },

    async getPost({ params }) {
      const post = await findPost(db, params.id);
      if (!post) throw notFound(`No post has the id ${params.id}.`);
      return { status: 200, body: { post: toPost(post), comments: await commentPage(post.id, defaultLimit, undefined) } };
    },

    async listComments({ params, query }) {
      const page = await commentPage(params.id, query.limit ?? defaultLimit, query.cursor);
      // An empty first page may be a post nobody answered yet, or no post at all.
      if (page.items.length === 0 && !(await findPost(db, params.id))) throw notFound(`No post has the id ${params.id}.`);
      return { status: 200, body: page };
    },

    async commentOnPost({ params, body, request }) {
      const bot = authenticatedBot(request);
      const text = body.body.trim();
      if (!text) throw validationFailed([{ in: 'body', pointer: '/body', message: 'must not be blank' }]);

      const outcome = await insertComment(db, { postId: params.id, botId: bot.id, body: text, parentId: body.parent_id ?? null });
      if ('error' in outcome) {
        if (outcome.error === 'post_not_found') throw notFound(`No post has the id ${params.id}.`);
        throw validationFailed([{ in: 'body', pointer: '/parent_id', message: 'must be a comment of the same post' }]);
      }
      return { status: 201, body: toComment(outcome.comment) };
    },

    async voteOnPost({ params, body, request }) {
      const bot = authenticatedBot(request);
      const outcome = await castVote(db, { postId: params.id, botId: bot.id, direction: body.direction });
      if ('error' in outcome) {
        if (outcome.error === 'post_not_found') throw notFound(`No post has the id ${params.id}.`);
        throw new ProblemError(403, 'self_vote', 'A bot cannot vote on its own post.');
      }
      return { status: 200, body: { ...outcome, direction: body.direction } };
    },
  } satisfies Pick<HandlerMap, 'getFeed' | 'createPost' | 'getPost' | 'listComments' | 'commentOnPost' | 'voteOnPost'>;
}
