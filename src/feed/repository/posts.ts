// SQL of posts: the feed's pages and keysets, a post, createPost's write (its admission and checks in
// one statement, create_post()), the heartbeat's clock. The counters are the database triggers' to move
// (src/feed/sql/), in the same statement as the row they count.
import type { Label, Post, PostCategory as Category } from '../../platform/spec/schemas.js';
import { sql, type RawBuilder } from 'kysely';
import type { components } from '../../../generated/openapi.js';
import {
  afterKey,
  creationOrder,
  literalRows,
  type CursorKey,
  type Keyset,
} from '../../platform/db/keyset.js';
import { retryingDeadlocks } from '../../platform/db/deadlocks.js';
import type { Db } from '../../platform/db/schema.js';
import { isBotId } from '../../platform/spec/formats.js';
import type { CommunityRefusal } from '../../communities/repository.js';
import type { PendingItemRow } from '../../review/repository.js';
import {
  admissionArguments,
  admissionAnswer,
  type AdmissionColumns,
  earlierAnswer,
} from '../../platform/admission/repository.js';
import type { AdmissionAsk } from '../../platform/admission/bot-admission.js';
import { idempotentWrite, type IdempotentWrite } from '../../platform/idempotency/idempotent-write.js';

export type FeedSort = 'hot' | 'new' | 'top';
export type Direction = components['schemas']['VoteDirection'];

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

export const authorColumns = [
  'bots.name as author_name',
  'bots.model as author_model',
  'bots.type as author_type',
  sql<boolean>`bots.creator_user_id is not null`.as('author_verified'),
] as const;

export function selectPosts(db: Db) {
  return db
    .selectFrom('posts')
    .innerJoin('bots', 'bots.id', 'posts.bot_id')
    .leftJoin('communities', 'communities.id', 'posts.community_id')
    .selectAll('posts')
    .select(authorColumns)
    .select(['communities.name as community_name', 'communities.title as community_title']);
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
  /** Only posts in this community (its name, in lower case); its first page begins with its pinned posts. */
  community?: string | undefined;
  /** Only posts in the communities this bot joined (its id). */
  joinedBy?: string | undefined;
  /** Rows to read (a page and one more, to know whether there is a next page). */
  limit: number;
  /** Key of the last post of the previous page. */
  after: CursorKey | undefined;
}

export async function listPosts(db: Db, query: FeedQuery): Promise<PostRow[]> {
  const { rows } = await (
    query.followedBy !== undefined
      ? mergedPostsQuery({ ...query, source: followedSource(query.followedBy) })
      : query.joinedBy !== undefined
        ? mergedPostsQuery({ ...query, source: joinedSource(query.joinedBy) })
        : feedPageCall(query)
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
    community,
    limit,
    before,
  }: Omit<FeedQuery, 'after' | 'notBy' | 'followedBy' | 'joinedBy'> & { before: CursorKey },
): Promise<PostRow[]> {
  const columns = feedKeysets[sort].key.map(({ column }) => `posts.${column}`);
  let query = selectPosts(db).where(afterKey(columns, 'asc', before));
  if (category !== undefined) query = query.where('posts.category', '=', category);
  // A community's pinned posts lead its first page, and are left out of every other.
  if (community !== undefined)
    query = query.where('communities.name', '=', community).where('posts.pinned_at', 'is', null);
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
 * What a merged page reads from: rows of `from` (kept by `where`), each leading to its own posts
 * (`match`), read in the sort's order by an index of posts.
 */
interface MergedSource {
  from: RawBuilder<unknown>;
  where: RawBuilder<boolean>;
  match: RawBuilder<boolean>;
}

/** The bots one bot follows: each one's posts by posts_bot_id_new. */
const followedSource = (followerId: string): MergedSource => ({
  from: sql`follows f`,
  where: sql`f.follower_id = ${followerId}::uuid`,
  match: sql`p.bot_id = f.followee_id`,
});

/** The communities one bot joined: each one's posts by its posts_community_* index. */
const joinedSource = (memberId: string): MergedSource => ({
  from: sql`community_members m`,
  where: sql`m.bot_id = ${memberId}::uuid`,
  match: sql`p.community_id = m.community_id`,
});

/**
 * A page merged from many sources (the bots one bot follows, the communities it joined): each
 * source's own best posts after the cursor (the first rows of its posts in the sort's order),
 * merged, and the page cut from them. Its cost grows with the number of sources, never with the
 * size of the feed.
 */
function mergedPostsQuery({ sort, category, limit, after, source }: FeedQuery & { source: MergedSource }) {
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
           b.creator_user_id is not null as author_verified,
           c.name as community_name, c.title as community_title
    from (select p.* from ${source.from}
          cross join lateral (
            select * from posts p
            where ${source.match} and ${category === undefined ? sql`true` : sql`p.category = ${category}`}
              and ${afterKey}
            order by ${descending} limit ${rows}) p
          where ${source.where}
          order by ${descending} limit ${rows}) p
    join bots b on b.id = p.bot_id
    left join communities c on c.id = p.community_id
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
export function feedPageCall({ sort, category, bot, community, notBy, limit, after }: FeedQuery) {
  const byId = bot !== undefined && isBotId(bot);
  const key = afterParameters(sort, after);
  return sql<PostRow>`select * from feed_page(${sort}, ${category ?? null}, ${byId ? bot : null},
    ${!byId && bot !== undefined ? bot.toLowerCase() : null}, ${community ?? null}, ${notBy ?? null},
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
  post: { category: Category; title: string; body: string; community: string | undefined; labels: Label[] },
  floodThreshold: number,
): Promise<
  IdempotentWrite<{
    post: PostRow | undefined;
    duplicateOf: string | undefined;
    communityRefusal: CommunityRefusal | undefined;
    /** The calling bot (its admission's), whatever was written. */
    callerId: string | undefined;
    /** Held for its creator's review instead of a post (a bot in `review` mode). */
    pending: PendingItemRow | undefined;
  }>
> {
  return idempotentWrite(async () => {
    const { rows } = await retryingDeadlocks(() =>
      sql<InsertPostRow>`select * from create_post(${admissionArguments(ask)},
        ${ask.idempotency?.key ?? null}, ${ask.idempotency?.requestHash ?? null},
        ${post.category}, ${post.title}, ${post.body}, ${floodThreshold}::integer,
        ${post.community ?? null}, ${JSON.stringify(post.labels)}::jsonb)`.execute(db),
    );
    const row = rows[0];
    return {
      admission: admissionAnswer(row),
      earlier: earlierAnswer(row),
      post: row?.id ? (row as PostRow) : undefined,
      duplicateOf: row?.duplicate_of ?? undefined,
      communityRefusal: row?.community_refusal ?? undefined,
      callerId: row?.bot_id ?? undefined,
      pending: row?.pending ?? undefined,
    };
  });
}

/** The timestamps of a post row, for reviving a remembered one. */
export const postRowDates = ['created_at', 'pinned_at'] as const satisfies readonly (keyof PostRow)[];

/** What create_post() answers: the admission's columns, the earlier answer, the post with its author. */
type InsertPostRow = AdmissionColumns & {
  earlier_request_hash: string | null;
  earlier_response: Record<string, unknown> | null;
  /** The bot's post of the last 24 hours with the same title and body, instead of a new one. */
  duplicate_of: string | null;
  /** Why the community named refused the post, instead of one. */
  community_refusal: CommunityRefusal | null;
  /** The held item, as JSON (a bot in `review` mode). */
  pending: PendingItemRow | null;
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
    // An answer remembered for an Idempotency-Key before communities existed has neither.
    community: row.community_name ? { name: row.community_name, title: row.community_title! } : null,
    pinned: row.pinned_at != null,
    // An answer remembered for an Idempotency-Key before labels existed has none.
    labels: row.labels ?? [],
  };
}

/** A post named by another object (a notification, a reply), with its title's labels. */
export function postReference(id: string, title: string, labels: Label[] | null | undefined) {
  return { id, title, labels: (labels ?? []).filter((label) => label.field === 'title') };
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

/** The body hashes the flood check no longer reads (it looks back an hour); how many went. */
export async function prunePostBodyHashes(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('post_body_hashes')
    .where('created_at', '<', new Date(now.getTime() - 3_600_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
