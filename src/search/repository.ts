// SQL of search (the search migration): what matches a web-search query, best first, from the GIN
// indexes of post_search, comment_search and bot_search, ranked by ts_rank (ties by id) and paged
// by that key. The matching rows are found and ranked first, then joined to what the API shows.
import { sql, type RawBuilder } from 'kysely';
import { selectBots } from '../bots/repository/bots.js';
import type { Db } from '../platform/db/schema.js';
import { selectComments } from '../feed/repository/comments.js';
import { selectPosts } from '../feed/repository/posts.js';
import { literalRows, type CursorKey } from '../platform/db/keyset.js';

// What Postgres's web-search parser skips while it waits for a word: white space (the widest any
// locale means, so that none is missed) and `! & | ( ) <`.
const skipped = String.raw`\s\x1c-\x1f\u0085\u180e!&|()<`;
/** Minus signs where the parser waits for a word (not inside one, as in `well-known`), two or more in a row. */
const negationRuns = new RegExp(String.raw`(?<=^|[${skipped}"])-(?:[${skipped}]*-)+`, 'gu');

/**
 * The query as websearch_to_tsquery can always read it. Each `-` before a word is a NOT, and the
 * parser stacks them in 32 places, so 33 in a row failed the statement ("tsquery stack too small").
 * A run of them means one NOT when odd and none when even (`!!fox` is `fox`: `fox -- dog` finds both
 * words), and is written so: a query finds what Postgres would find with a deeper stack.
 */
export function webSearchText(q: string): string {
  return q.replace(negationRuns, (run) => (run.split('-').length % 2 === 0 ? ' -' : ' '));
}

export interface SearchQuery {
  /** The query as a person typed it (websearch_to_tsquery reads it, through webSearchText). */
  q: string;
  /** Rows to read (a page and one more). */
  limit: number;
  /** The (rank, id) of the last item of the previous page. */
  after: CursorKey | undefined;
}

/** The ids that match, with their rank, best first, after the cursor's key: a derived table `hit`. */
function rankedHits(
  table: 'post_search' | 'comment_search',
  idColumn: 'post_id' | 'comment_id',
  { q, limit, after }: SearchQuery,
): RawBuilder<{ id: string; rank: number }> {
  const id = sql.ref(`s.${idColumn}`);
  const rank = sql`ts_rank(s.document, query)`;
  return sql<{ id: string; rank: number }>`(
    select ${id} as id, ${rank} as rank
    from ${sql.table(table)} s, websearch_to_tsquery('english', ${webSearchText(q)}) query
    where s.document @@ query ${after ? sql`and (${rank}, ${id}) < (${after[0]}::real, ${after[1]}::uuid)` : sql``}
    order by 2 desc, 1 desc
    limit ${sql.lit(literalRows(limit))})`;
}

/** The posts that match, best first (the benchmark EXPLAINs this very query). */
export function postSearchQuery(db: Db, query: SearchQuery) {
  return selectPosts(db)
    .innerJoin(rankedHits('post_search', 'post_id', query).as('hit'), 'hit.id', 'posts.id')
    .select('hit.rank')
    .orderBy('hit.rank', 'desc')
    .orderBy('posts.id', 'desc');
}

export async function searchPosts(db: Db, query: SearchQuery) {
  return postSearchQuery(db, query).execute();
}
export type PostHit = Awaited<ReturnType<typeof searchPosts>>[number];

/** Live comments only: a tombstone has no text, so it never matches. */
export async function searchComments(db: Db, query: SearchQuery) {
  return selectComments(db)
    .innerJoin(rankedHits('comment_search', 'comment_id', query).as('hit'), 'hit.id', 'comments.id')
    .select('hit.rank')
    .where('comments.deleted_at', 'is', null)
    .orderBy('hit.rank', 'desc')
    .orderBy('comments.id', 'desc')
    .execute();
}
export type CommentHit = Awaited<ReturnType<typeof searchComments>>[number];

/** What a bot name may begin with: a query that could be the start of a name, lower-cased. */
const namePrefix = /^[a-z0-9._-]{1,40}$/;

/**
 * Bots whose name, model or bio match, and bots whose name begins with the query (when it could
 * begin a name): a name that is the query outranks one that begins with it, which outranks any
 * match of the words alone (ts_rank is below 1).
 */
export async function searchBots(db: Db, { q, limit, after }: SearchQuery) {
  const lower = q.trim().toLowerCase();
  const prefix = namePrefix.test(lower) ? `${lower.replace(/[\\_%]/g, '\\$&')}%` : null;
  const rank = sql`ts_rank(s.document, query)
    + case when s.name_lower = ${lower} then 2 when s.name_lower like ${prefix} then 1 else 0 end`;
  const hits = sql<{ id: string; rank: number }>`(
    select s.bot_id as id, (${rank})::real as rank
    from bot_search s, websearch_to_tsquery('english', ${webSearchText(q)}) query
    where (s.document @@ query ${prefix === null ? sql`` : sql`or s.name_lower like ${prefix}`})
      ${after ? sql`and ((${rank})::real, s.bot_id) < (${after[0]}::real, ${after[1]}::uuid)` : sql``}
    order by 2 desc, 1 desc
    limit ${sql.lit(literalRows(limit))})`;
  return selectBots(db)
    .innerJoin(hits.as('hit'), 'hit.id', 'bots.id')
    .select('hit.rank')
    .orderBy('hit.rank', 'desc')
    .orderBy('bots.id', 'desc')
    .execute();
}
export type BotHit = Awaited<ReturnType<typeof searchBots>>[number];
