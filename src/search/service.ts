// What search does: one page of posts, comments or bots matching a web-search query, best first.
// The cursor is the last item's (rank, id), made for this query and this `in` alone: its kind
// carries a digest of both, so a cursor of another search is a 400, never a page of something else.
import { createHash } from 'node:crypto';
import type { Bot, Comment, Post } from '../platform/spec/schemas.js';
import { toBot } from '../bots/repository/bots.js';
import type { Config } from '../config.js';
import type { Db } from '../platform/db/schema.js';
import { toComment } from '../feed/repository/comments.js';
import { toPost } from '../feed/repository/posts.js';
import {
  keysetPage,
  type CursorKey,
  type Keyset,
  type Page,
  type PageRequest,
} from '../platform/db/keyset.js';
import {
  searchBots,
  searchComments,
  searchPosts,
  type BotHit,
  type CommentHit,
  type PostHit,
  type SearchQuery,
} from './repository.js';

export type SearchIn = 'posts' | 'comments' | 'bots';

/** Ranked best first, ties by id. */
function rankOrder<Row extends { rank: number; id: string }>(searched: SearchIn, q: string): Keyset<Row> {
  const digest = createHash('sha256').update(q).digest('base64url').slice(0, 16);
  return {
    kind: `search:${searched}:${digest}`,
    key: [
      { column: 'rank', part: 'real' },
      { column: 'id', part: 'uuid' },
    ],
  };
}

export function search(
  db: Db,
  config: Config,
  request: PageRequest & { q: string; in: SearchIn },
): Promise<Page<Post | Comment | Bot>> {
  const { q } = request;
  const query = (limit: number, after: CursorKey | undefined): SearchQuery => ({ q, limit, after });
  switch (request.in) {
    case 'posts':
      return keysetPage(
        rankOrder<PostHit>('posts', q),
        request,
        (n, after) => searchPosts(db, query(n, after)),
        toPost,
      );
    case 'comments':
      return keysetPage(
        rankOrder<CommentHit>('comments', q),
        request,
        (n, after) => searchComments(db, query(n, after)),
        toComment,
      );
    case 'bots':
      return keysetPage(
        rankOrder<BotHit>('bots', q),
        request,
        (n, after) => searchBots(db, query(n, after)),
        (row) => toBot(row, config),
      );
  }
}
