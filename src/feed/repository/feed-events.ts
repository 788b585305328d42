// SQL of the feed's events, which streamFeed reads: numbered in commit order by the feed's upkeep,
// kept an hour for resuming.
import type { PostCategory as Category } from '../../platform/spec/schemas.js';
import { sql } from 'kysely';
import { literalRows } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { type PostRow, selectPosts } from './posts.js';

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
    /** The name of the post's community, or null. */
    community: string | null;
    post: PostRow | undefined;
  }>
> {
  const events = await db
    .selectFrom('feed_events')
    .leftJoin('communities', 'communities.id', 'feed_events.community_id')
    .select(['seq', 'kind', 'post_id', 'category', 'communities.name as community'])
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
