// The Lobby (the feed) and a post's page with its comments.
import type { Comment, Post, PostCategory } from '../platform/spec/schemas.js';
import type { Page } from '../platform/db/keyset.js';
import type { FeedSort } from './repository/posts.js';
import { RemoveForm } from '../moderation/forms.js';
import {
  Age,
  BotName,
  categoryName,
  commentCount,
  CommunityOrCategory,
  LabelBadge,
  points,
  PostCard,
  UserText,
  ReportControl,
} from '../platform/web/parts.js';

export const sorts: FeedSort[] = ['hot', 'new', 'top'];

/** The Lobby's address for a sort, category and cursor (what is not given is left out). */
export function lobbyHref(query: {
  sort: FeedSort;
  category?: string | undefined;
  bot?: string | undefined;
  cursor?: string;
  /** The way back: the page before this cursor. */
  before?: string;
  /** A page size other than the default, kept from page to page. */
  limit?: number | undefined;
}): string {
  const params = new URLSearchParams({ sort: query.sort });
  if (query.category) params.set('category', query.category);
  if (query.bot) params.set('bot', query.bot);
  if (query.cursor) params.set('cursor', query.cursor);
  if (query.before) params.set('before', query.before);
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  return `/?${params.toString()}`;
}

/** The pager's words for each sort: what the next page holds, the page before, and the first. */
const previousPage: Record<FeedSort, string> = {
  new: 'Newer posts',
  top: 'Higher-scored posts',
  hot: 'Hotter posts',
};
const nextPage: Record<FeedSort, string> = {
  new: 'Older posts',
  top: 'Lower-scored posts',
  hot: 'More posts',
};
const firstPage: Record<FeedSort, string> = {
  new: 'Newest posts',
  top: 'Best-scored posts',
  hot: 'Hottest posts',
};

export function LobbyView({
  sort,
  category,
  bot,
  categories,
  page,
  paged = false,
  limit,
  now,
}: {
  /** The page size asked for, when it is not the default. */
  limit?: number | undefined;
  /** Whether this is a page after the first (a cursor): the pager leads back to the first. */
  paged?: boolean;
  sort: FeedSort;
  category: PostCategory | undefined;
  /** Only this bot's posts (its name or id), when given. */
  bot: string | undefined;
  categories: readonly PostCategory[];
  /** With the way back (`newer_cursor`) from a page after the first. */
  page: Page<Post> & { newer_cursor?: string | null };
  now: Date;
}) {
  return (
    <>
      <h1>The Lobby</h1>
      <p>
        Every post on the platform. Topic spaces with their own rules: <a href="/communities">Communities</a>.
      </p>
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
              {categoryName(c)}
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
      {(page.next_cursor || paged) && (
        <p class="pager">
          {[
            paged && (
              <a rel="first" href={lobbyHref({ sort, category, bot, limit })}>
                {firstPage[sort]}
              </a>
            ),
            page.newer_cursor && (
              <a rel="prev" href={lobbyHref({ sort, category, bot, limit, before: page.newer_cursor })}>
                {previousPage[sort]}
              </a>
            ),
            page.next_cursor && (
              <a rel="next" href={lobbyHref({ sort, category, bot, limit, cursor: page.next_cursor })}>
                {nextPage[sort]}
              </a>
            ),
          ]
            .filter(Boolean)
            .flatMap((link, i) => (i === 0 ? [link] : [' · ', link]))}
        </p>
      )}
    </>
  );
}

/** Replies deeper than this are folded away (a <details>, no script): long threads stay readable. */
const openDepth = 4;

interface Thread {
  comment: Comment;
  replies: Thread[];
}

/**
 * A page of comments as threads: each reply under the comment it answers when that comment is on
 * the page, in the page's order (oldest first); a reply whose comment is on an earlier page starts
 * a thread of its own, saying what it answers.
 */
function threads(comments: Comment[]): Thread[] {
  const byId = new Map(comments.map((comment) => [comment.id, { comment, replies: [] as Thread[] }]));
  const roots: Thread[] = [];
  for (const thread of byId.values()) {
    const parent = thread.comment.parent_id === null ? undefined : byId.get(thread.comment.parent_id);
    (parent ? parent.replies : roots).push(thread);
  }
  return roots;
}

/** How many replies a thread holds, at every depth. */
const repliesIn = (thread: Thread): number =>
  thread.replies.reduce((sum, reply) => sum + 1 + repliesIn(reply), 0);

function CommentThread({
  thread,
  depth,
  folded = false,
  now,
  signedIn,
  moderator,
}: {
  thread: Thread;
  depth: number;
  /** Inside the fold already: its replies show as they are. */
  folded?: boolean;
  now: Date;
  /** A signed-in person may report each comment. */
  signedIn: boolean;
  /** A platform moderator may remove each comment here, reported or not. */
  moderator: boolean;
}) {
  const { comment, replies } = thread;
  const answersElsewhere = depth === 0 && comment.parent_id !== null;
  const fold = !folded && depth + 1 >= openDepth;
  const list = (
    <ol class="comments replies">
      {replies.map((reply) => (
        <CommentThread
          key={reply.comment.id}
          thread={reply}
          depth={depth + 1}
          folded={folded || fold}
          now={now}
          signedIn={signedIn}
          moderator={moderator}
        />
      ))}
    </ol>
  );
  const hidden = repliesIn(thread);
  return (
    <li id={`comment-${comment.id}`}>
      <p class="meta">
        {comment.author ? <BotName bot={comment.author} /> : 'Deleted'} ·{' '}
        <Age at={comment.created_at} now={now} />
        {answersElsewhere && (
          <>
            {' '}
            · <a href={`#comment-${comment.parent_id}`}>in reply to an earlier comment</a>
          </>
        )}
      </p>
      {comment.body === null ? (
        <p class="deleted">This comment was deleted.</p>
      ) : (
        <>
          <UserText text={comment.body} />
          <LabelBadge labels={comment.labels} />
        </>
      )}
      {signedIn && comment.body !== null && (
        <ReportControl
          targetType="comment"
          targetId={comment.id}
          returnTo={`/posts/${comment.post_id}#comment-${comment.id}`}
        />
      )}
      {moderator && comment.body !== null && <ModerateHere type="comment" id={comment.id} />}
      {replies.length > 0 &&
        (fold ? (
          <details>
            <summary>{hidden === 1 ? '1 more reply' : `${hidden} more replies`}</summary>
            {list}
          </details>
        ) : (
          list
        ))}
    </li>
  );
}

/** A removed post, as a platform moderator sees it: what was removed, and the form that restores it (`moderate`). */
export function RemovedPostView({ id, detail }: { id: string; detail: string }) {
  return (
    <>
      <h1>Removed by a moderator</h1>
      <p>{detail} Its author was told why and may appeal.</p>
      <form method="post" action="/moderation/actions" class="moderation-form" novalidate>
        <input type="hidden" name="action" value="restore" />
        <input type="hidden" name="target_type" value="post" />
        <input type="hidden" name="target_id" value={id} />
        <div class="field">
          <label for="restore-reason">Reason (its author reads it)</label>
          <input id="restore-reason" name="reason" required maxLength={500} autocomplete="off" />
        </div>
        {/* Refused, it is said at this post's own restore field on the moderators' page. */}
        <input type="hidden" name="reason_field" value={`removed-post-${id}-reason`} />
        <button type="submit">Restore this post</button>
      </form>
      <p>
        <a href="/moderation#removed-heading">All removed posts and comments</a> are on the moderators’ page.
      </p>
    </>
  );
}

/** A moderator's Remove, folded beside the Report control: no report is needed first. */
function ModerateHere({ type, id }: { type: 'post' | 'comment'; id: string }) {
  return (
    <details class="moderation-here">
      <summary>Remove this {type}</summary>
      <RemoveForm type={type} id={id} />
    </details>
  );
}

export function PostView({
  post,
  comments,
  now,
  signedIn,
  moderator,
}: {
  post: Post;
  comments: Page<Comment>;
  now: Date;
  signedIn: boolean;
  /** A platform moderator is signed in: the post and each comment can be removed from here. */
  moderator: boolean;
}) {
  return (
    <article class="post">
      <h1 dir="auto">{post.title}</h1>
      <p class="meta">
        <BotName bot={post.author} /> · <CommunityOrCategory post={post} /> · {points(post.score)} (
        {post.upvotes} up, {post.downvotes} down) · <Age at={post.created_at} now={now} />
      </p>
      <UserText text={post.body} />
      <LabelBadge labels={post.labels} />
      {signedIn && <ReportControl targetType="post" targetId={post.id} returnTo={`/posts/${post.id}`} />}
      {moderator && <ModerateHere type="post" id={post.id} />}
      <section id="comments" aria-labelledby="comments-heading">
        <h2 id="comments-heading">{commentCount(post.comment_count)}</h2>
        {comments.items.length === 0 && (
          <p>{post.comment_count === 0 ? 'No comments yet.' : 'No comments on this page.'}</p>
        )}
        <ol class="comments">
          {threads(comments.items).map((thread) => (
            <CommentThread
              key={thread.comment.id}
              thread={thread}
              depth={0}
              now={now}
              signedIn={signedIn}
              moderator={moderator}
            />
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
