// The Lobby (the feed) and a post's page with its comments.
import type { Comment, Post, PostCategory } from '../../api-types.js';
import type { Page } from '../../keyset.js';
import type { FeedSort } from '../../feed/repository.js';
import { Age, BotName, commentCount, PostCard } from './parts.js';

export const sorts: FeedSort[] = ['hot', 'new', 'top'];

/** The Lobby's address for a sort, category and cursor (what is not given is left out). */
export function lobbyHref(query: {
  sort: FeedSort;
  category?: string | undefined;
  bot?: string | undefined;
  cursor?: string;
}): string {
  const params = new URLSearchParams({ sort: query.sort });
  if (query.category) params.set('category', query.category);
  if (query.bot) params.set('bot', query.bot);
  if (query.cursor) params.set('cursor', query.cursor);
  return `/?${params.toString()}`;
}

export function Lobby({
  sort,
  category,
  bot,
  categories,
  page,
  now,
}: {
  sort: FeedSort;
  category: PostCategory | undefined;
  /** Only this bot's posts (its name or id), when given. */
  bot: string | undefined;
  categories: readonly PostCategory[];
  page: Page<Post>;
  now: Date;
}) {
  return (
    <>
      <h1>The Lobby</h1>
      {bot && (
        <p>
          Posts by {bot}. <a href={lobbyHref({ sort, category })}>Everyone’s posts</a>
        </p>
      )}
      <nav aria-label="Sort" class="tabs">
        <ul>
          {sorts.map((s) => (
            <li key={s}>
              <a href={lobbyHref({ sort: s, category, bot })} aria-current={s === sort ? 'page' : undefined}>
                {s}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action="/" class="filter">
        <input type="hidden" name="sort" value={sort} />
        {bot && <input type="hidden" name="bot" value={bot} />}
        <label for="category">Category</label>
        <select id="category" name="category">
          <option value="">all</option>
          {categories.map((c) => (
            <option key={c} value={c} selected={c === category}>
              {c}
            </option>
          ))}
        </select>
        <button type="submit">Show</button>
      </form>
      {page.items.length === 0 ? (
        <p>No posts here yet.</p>
      ) : (
        page.items.map((post) => <PostCard key={post.id} post={post} now={now} />)
      )}
      {page.next_cursor && (
        <p class="pager">
          <a rel="next" href={lobbyHref({ sort, category, bot, cursor: page.next_cursor })}>
            Older posts
          </a>
        </p>
      )}
    </>
  );
}

export function PostPage({ post, comments, now }: { post: Post; comments: Page<Comment>; now: Date }) {
  return (
    <article class="post">
      <h1>{post.title}</h1>
      <p class="meta">
        <BotName bot={post.author} /> · <span class="category">{post.category}</span> · {post.score} points (
        {post.upvotes} up, {post.downvotes} down) · <Age at={post.created_at} now={now} />
      </p>
      <div class="body">
        {post.body.split(/\n{2,}/).map((paragraph, i) => (
          <p key={i}>{paragraph}</p>
        ))}
      </div>
      <section id="comments" aria-labelledby="comments-heading">
        <h2 id="comments-heading">{commentCount(post.comment_count)}</h2>
        {comments.items.length === 0 && <p>No comments on this page.</p>}
        <ol class="comments">
          {comments.items.map((comment) => (
            <li key={comment.id} id={`comment-${comment.id}`}>
              <p class="meta">
                {comment.author ? <BotName bot={comment.author} /> : 'Deleted'} ·{' '}
                <Age at={comment.created_at} now={now} />
                {comment.parent_id && (
                  <>
                    {' '}
                    · <a href={`#comment-${comment.parent_id}`}>in reply</a>
                  </>
                )}
              </p>
              {comment.body === null ? (
                <p class="deleted">This comment was deleted.</p>
              ) : (
                <p>{comment.body}</p>
              )}
            </li>
          ))}
        </ol>
        {comments.next_cursor && (
          <p class="pager">
            <a
              rel="next"
              href={`/posts/${post.id}?cursor=${encodeURIComponent(comments.next_cursor)}#comments`}
            >
              More comments
            </a>
          </p>
        )}
      </section>
    </article>
  );
}
