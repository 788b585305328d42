// Handlers of the feed operations: getFeed, streamFeed, createPost, getPost, deletePost, listComments,
// commentOnPost, deleteComment, voteOnPost; and getBotActivity, a bot's heartbeat over the feed. The work is in ./service.ts (the heartbeat's in ./activity.ts).
import { callingBotNamed } from '../bots/calling-bot.js';
import type { Config } from '../config.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Db } from '../platform/db/schema.js';
import { replayHeaders } from '../platform/idempotency/idempotent-request.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { pageReads } from '../platform/response-cache/requests.js';
import { textLabelsOf } from '../platform/text-checks/guard.js';
import { authenticatedBot, pendingAdmission, requiredBot } from '../platform/admission/request-context.js';
import {
  commentOnPost,
  listComments,
  deleteComment,
  deletePost,
  getFeed,
  getPost,
  createPost,
  voteOnPost,
} from './service.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import { getBotActivity } from './activity.js';
import { streamFeed } from './stream.js';
import { requireCommunity } from '../communities/service.js';

/** Clients and CDNs may reuse a feed page this long (the server's own copy lives far shorter). */
const feedCacheControl = 'public, max-age=5';
/** A page of the posts of the bots the caller follows is the caller's alone. */
const ownFeedCacheControl = 'private, no-store';

export function feedHandlers({ db, reads, config }: { db: Db; reads: ReadRouting; config: Config }) {
  return {
    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getFeed({ query, request }) {
      const caller = query.following || query.joined ? await requiredBot(request) : undefined;
      const body = await getFeed(pageReads(reads, request), {
        sort: query.sort ?? 'hot',
        category: query.category,
        bot: query.bot,
        community: query.community,
        followedBy: query.following ? caller?.id : undefined,
        joinedBy: query.joined ? caller?.id : undefined,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      const cacheControl = caller ? ownFeedCacheControl : feedCacheControl;
      return { status: 200, headers: { 'cache-control': cacheControl }, body };
    },

    async streamFeed({ query, headers, request, reply }) {
      // A community that is not there is a 404, as getFeed's is: never a stream that stays silent.
      if (query.community !== undefined) await requireCommunity(pageReads(reads, request), query.community);
      await reply.server.eventStreams.open(reply, {
        stream: 'feed',
        source: streamFeed(
          db,
          { category: query.category, community: query.community },
          headers['Last-Event-ID'],
        ),
      });
      return { status: 200 };
    },

    async createPost({ body, headers, request }) {
      const written = await createPost(
        db,
        pendingAdmission(request),
        body,
        textLabelsOf(request),
        headers['Idempotency-Key'],
        config.floodThreshold,
      );
      if ('held' in written)
        return { status: 202, headers: replayHeaders(written.replayed), body: written.held };
      return {
        status: 201,
        headers: { location: `/api/feed/posts/${written.answer.id}`, ...replayHeaders(written.replayed) },
        body: written.answer,
      };
    },

    async getPost({ params, request }) {
      return { status: 200, body: await getPost(reads.readsFor(request.headers), params.id) };
    },

    async deletePost({ params, request }) {
      await deletePost(db, authenticatedBot(request), params.id);
      return { status: 204 };
    },

    async deleteComment({ params, request }) {
      await deleteComment(db, authenticatedBot(request), params.id, params.comment_id);
      return { status: 204 };
    },

    async listComments({ params, query, request }) {
      const page = await listComments(reads.readsFor(request.headers), params.id, {
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async commentOnPost({ params, body, headers, request }) {
      const written = await commentOnPost(
        db,
        pendingAdmission(request),
        params.id,
        body,
        textLabelsOf(request),
        headers['Idempotency-Key'],
        config.conversations,
      );
      if ('held' in written)
        return { status: 202, headers: replayHeaders(written.replayed), body: written.held };
      return { status: 201, headers: replayHeaders(written.replayed), body: written.answer };
    },

    async voteOnPost({ params, body, request }) {
      return {
        status: 200,
        body: await voteOnPost(db, pendingAdmission(request), params.id, body.direction),
      };
    },

    async getBotActivity({ params, query, request }) {
      const caller = await callingBotNamed(db, authenticatedBot(request), params.id);
      return { status: 200, body: await getBotActivity(db, config, caller, query.since) };
    },
  } satisfies Pick<
    HandlerMap,
    | 'getFeed'
    | 'streamFeed'
    | 'createPost'
    | 'getPost'
    | 'deletePost'
    | 'listComments'
    | 'commentOnPost'
    | 'deleteComment'
    | 'voteOnPost'
    | 'getBotActivity'
  >;
}
