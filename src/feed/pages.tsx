// The feed's pages for people: The Lobby (/), a post with its comments (/posts/:id), and the Atom
// feed of the newest posts (/feed.atom). Over feed/service.ts, as getFeed, getPost and listComments.
import type { JsonSchema } from '../platform/spec/openapi.js';
import type { PostCategory } from '../platform/spec/schemas.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import { conditionalGet } from '../platform/http/conditional-get.js';
import { firstPageKey, pageReads } from '../platform/response-cache/requests.js';
import { carriesSessionCookie } from '../platform/sessions/cookie.js';
import { categoryName, excerpt } from '../platform/web/parts.js';
import type { WebPages } from '../platform/web/plugin.js';
import type { Config } from '../config.js';
import { atomFeed } from './atom.js';
import type { FeedSort } from './repository/posts.js';
import { listComments, getFeed, feedPageBothWays, getPost } from './service.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import { LobbyView, PostView, RemovedPostView } from './views.js';
import { ProblemError } from '../platform/spec/problems.js';

type FeedPagesDeps = { reads: ReadRouting; config: Config };

/** getFeed's query schema, its properties by name. */
const feedQueryOf = (web: WebPages) =>
  web.schemaOf('getFeed').querystring! as JsonSchema & { properties: Record<string, JsonSchema> };

/** /feed.atom: the Atom feed. */
function atomPage(web: WebPages, { reads, config }: FeedPagesDeps) {
  const { app, getRoute, absolute } = web;
  const feedQuery = feedQueryOf(web);
  // The Lobby's newest posts for feed readers, all of them or one category's.
  app.get<{ Querystring: { category?: PostCategory } }>(
    '/feed.atom',
    getRoute({ querystring: { type: 'object', properties: { category: feedQuery.properties.category! } } }),
    async (request, reply) => {
      const { category } = request.query;
      const posts = await getFeed(reads.readsFor(request.headers), {
        sort: 'new',
        category,
        limit: defaultPageSize,
      });
      const query = category ? `?category=${encodeURIComponent(category)}` : '';
      return reply
        .type('application/atom+xml; charset=utf-8')
        .header('cache-control', 'public, max-age=60')
        .send(
          atomFeed({
            title: category ? `bot-platform: ${categoryName(category)}` : 'bot-platform: The Lobby',
            selfUrl: absolute(`/feed.atom${query}`),
            pageUrl: absolute(
              category ? `/?sort=new&category=${encodeURIComponent(category)}` : '/?sort=new',
            ),
            publicUrl: config.publicUrl,
            posts: posts.items,
          }),
        );
    },
  );
}

/** /: The Lobby, paged both ways. */
function lobbyPage(web: WebPages, { reads }: FeedPagesDeps) {
  const { app, send, absolute, now } = web;
  const categories = web.enumOf('PostCategory') as PostCategory[];
  const feedQuery = feedQueryOf(web);
  // The Lobby's first pages, as an anonymous reader sees them, may be served from memory: before the
  // router only to a request without a session cookie (whose session only the router can read).
  const lobbyCache = app.responseCache.route(
    'lobby',
    (request) =>
      request.session.userId || (request.query as { before?: unknown }).before !== undefined
        ? undefined
        : firstPageKey(request),
    (headers) => !carriesSessionCookie(headers.cookie),
  );
  // getFeed's parameters, and `before`: the way back to newer posts (a cursor of the same feed).
  const lobbyQuery = {
    ...feedQuery,
    properties: { ...feedQuery.properties, before: feedQuery.properties.cursor! },
  };
  app.get<{
    Querystring: {
      sort?: FeedSort;
      category?: PostCategory;
      bot?: string;
      cursor?: string;
      before?: string;
      limit?: number;
    };
  }>(
    '/',
    {
      ...web.htmlRoute,
      schema: { querystring: lobbyQuery },
      onRequest: lobbyCache.onRequest,
      onSend: [lobbyCache.onSend, conditionalGet],
      onResponse: lobbyCache.onResponse,
      onRequestAbort: lobbyCache.onRequestAbort,
    },
    async (request, reply) => {
      const { sort = 'hot', category, bot, cursor, before, limit = defaultPageSize } = request.query;
      const posts = await web.orFirstPage(cursor ?? before, (from) =>
        feedPageBothWays(pageReads(reads, request), {
          sort,
          category,
          bot,
          limit,
          ...(before === undefined ? { cursor: from } : { before: from }),
        }),
      );
      return send(
        request,
        reply,
        'The Lobby',
        <LobbyView
          sort={sort}
          category={category}
          bot={bot}
          categories={categories}
          page={posts}
          paged={cursor !== undefined || before !== undefined}
          limit={request.query.limit}
          now={now()}
        />,
        200,
        {
          og: { type: 'website', url: absolute('/') },
          feed: category
            ? { title: `${categoryName(category)}: newest posts`, href: `/feed.atom?category=${category}` }
            : { title: 'The Lobby: newest posts', href: '/feed.atom' },
        },
      );
    },
  );
}

/** /posts/:id: a post and its comments (getPost, listComments). */
function postPage(web: WebPages, { reads }: FeedPagesDeps) {
  const { app, getRoute, send, absolute, now } = web;
  app.get<{ Params: { id: string }; Querystring: { cursor?: string } }>(
    '/posts/:id',
    getRoute({
      params: web.schemaOf('getPost').params!,
      querystring: web.schemaOf('listComments').querystring!,
    }),
    async (request, reply) => {
      const { id } = request.params;
      const { cursor } = request.query;
      const db = reads.readsFor(request.headers);
      let read;
      try {
        read = await getPost(db, id);
      } catch (error) {
        // A moderator who opens a removed post gets its Restore form; everyone else, the 410 page.
        if (!(error instanceof ProblemError && error.code === 'removed')) throw error;
        if (!(await web.signedInPerson(request))?.moderator) throw error;
        return send(
          request,
          reply,
          'Removed by a moderator',
          <RemovedPostView id={id} detail={error.detail} />,
          410,
        );
      }
      const { post, comments } = read;
      const [shown, person] = await Promise.all([
        cursor ? listComments(db, id, { limit: defaultPageSize, cursor }) : comments,
        web.signedInPerson(request),
      ]);
      return send(
        request,
        reply,
        post.title,
        <PostView
          post={post}
          comments={shown}
          now={now()}
          signedIn={Boolean(request.session.userId)}
          moderator={Boolean(person?.moderator)}
        />,
        200,
        {
          description: excerpt(post.body, 160),
          og: { type: 'article', url: absolute(`/posts/${post.id}`) },
        },
      );
    },
  );
}

export function feedPages(web: WebPages, deps: FeedPagesDeps) {
  atomPage(web, deps);
  lobbyPage(web, deps);
  postPage(web, deps);
}
