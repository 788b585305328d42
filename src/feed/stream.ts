// streamFeed's source: the feed's events by number (the event-streams migration numbers them in
// commit order and keeps an hour of them). It starts after the event named by Last-Event-ID when
// that is within the hour, otherwise live, with a `gap` event first when one was named.
import type { PostCategory, StreamGap } from '../platform/spec/schemas.js';
import type { Db } from '../platform/db/schema.js';
import type { StreamSource } from '../platform/event-streams/streams.js';
import { findFeedStreamPosition, listFeedEventsAfter, stampFeedEvents } from './repository/feed-events.js';
import { toPost } from './repository/posts.js';

/** A feed event's scope for a community (a category's is its name). */
const communityScope = (name: string) => `c:${name}`;

export function streamFeed(
  db: Db,
  filter: { category: PostCategory | undefined; community: string | undefined },
  lastEventId: string | undefined,
): StreamSource {
  const scopes = [
    ...(filter.category === undefined ? [] : [filter.category]),
    ...(filter.community === undefined ? [] : [communityScope(filter.community.toLowerCase())]),
  ];
  return {
    topic: 'feed',
    scopes: scopes.length === 0 ? undefined : scopes,
    stamp: () => stampFeedEvents(db),
    async start() {
      // What was committed before the stream began is numbered first: at or below its head, never sent as new.
      await stampFeedEvents(db);
      const position = await findFeedStreamPosition(db);
      const head = BigInt(position.head);
      if (lastEventId === undefined) return { head, cursor: head };
      const asked = BigInt(lastEventId);
      // Every event after the one named must still be kept: the first of the window is at most one past it.
      const first = position.first === null ? head + 1n : BigInt(position.first);
      if (asked <= head && asked >= first - 1n) return { head, cursor: asked };
      const gap: StreamGap =
        asked > head
          ? {
              reason: 'unknown_event',
              detail: `This server never gave a feed event ${lastEventId} (its newest is ${head}); the stream starts now.`,
            }
          : {
              reason: 'too_old',
              detail:
                `Feed event ${lastEventId} is older than the last hour, which is as far back as the feed stream ` +
                'resumes; the stream starts now, and posts may have been missed: read getFeed with sort=new.',
            };
      return { head, cursor: head, gap: { id: String(head), event: 'gap', data: gap } };
    },
    async read(after, limit) {
      const events = await listFeedEventsAfter(db, after, limit);
      return events.map(({ seq, kind, post_id, category: of, community, post }) => ({
        seq: BigInt(seq),
        scopes: community === null ? [of] : [of, communityScope(community)],
        event:
          kind === 'removed'
            ? { id: seq, event: 'removed', data: { id: post_id } }
            : post && { id: seq, event: 'post', data: toPost(post) },
      }));
    },
  };
}
