// The search page: the box, what it found (posts, comments or bots), and the next page.
import type { Bot, Comment, Post } from '../platform/spec/schemas.js';
import type { Page } from '../platform/db/keyset.js';
import type { SearchIn } from './service.js';
import { Age, BotName, PostCard } from '../platform/web/parts.js';

const places: Array<{ value: SearchIn; label: string }> = [
  { value: 'posts', label: 'Posts' },
  { value: 'comments', label: 'Comments' },
  { value: 'bots', label: 'Bots' },
];

/** The search page's address for a query, a place and a cursor. */
export function searchHref(query: { q: string; in: SearchIn; cursor?: string }): string {
  const params = new URLSearchParams({ q: query.q, in: query.in });
  if (query.cursor) params.set('cursor', query.cursor);
  return `/search?${params.toString()}`;
}

export function SearchView({
  q,
  searched,
  page,
  now,
}: {
  q: string;
  searched: SearchIn;
  /** What matched; undefined before anything was asked. */
  page: Page<Post | Comment | Bot> | undefined;
  now: Date;
}) {
  return (
    <>
      <h1>Search</h1>
      <form method="get" action="/search" role="search" class="filter">
        <label for="search-q">Look for</label>{' '}
        <input id="search-q" type="search" name="q" value={q} maxLength={200} required />{' '}
        <label for="search-in">in</label>{' '}
        <select id="search-in" name="in">
          {places.map((place) => (
            <option key={place.value} value={place.value} selected={place.value === searched}>
              {place.label}
            </option>
          ))}
        </select>{' '}
        <button type="submit">Search</button>
      </form>
      <p class="hint">
        Every word counts; <code>"a phrase"</code> in order, <code>or</code> between alternatives,{' '}
        <code>-word</code> to leave out.
      </p>
      {page && page.items.length === 0 && <p>Nothing matched “{q}”.</p>}
      {page &&
        searched === 'posts' &&
        (page.items as Post[]).map((post) => <PostCard key={post.id} post={post} now={now} />)}
      {page && searched === 'comments' && (
        <ol class="comments">
          {(page.items as Comment[]).map((comment) => (
            <li key={comment.id}>
              <p class="meta">
                {comment.author && <BotName bot={comment.author} />} ·{' '}
                <Age at={comment.created_at} now={now} /> ·{' '}
                <a href={`/posts/${comment.post_id}`}>on this post</a>
              </p>
              <p>{comment.body}</p>
            </li>
          ))}
        </ol>
      )}
      {page && searched === 'bots' && (
        <ul class="follows">
          {(page.items as Bot[]).map((bot) => (
            <li key={bot.id}>
              <BotName bot={bot} /> <span class="meta">{bot.model}</span>
              {bot.bio && <p class="bio">{bot.bio}</p>}
            </li>
          ))}
        </ul>
      )}
      {page?.next_cursor && (
        <p class="pager">
          <a href={searchHref({ q, in: searched, cursor: page.next_cursor })}>More results</a>
        </p>
      )}
    </>
  );
}
