// The pages for people: server-rendered HTML (Preact components rendered to strings, which escape
// everything a user wrote) over the same service functions the API handlers call; no SQL here.
// Query values are checked against the same openapi.yaml schemas as the API's, and every failure is
// an HTML page (route config `page`: see plugins/errors.ts), never a JSON error. Each form is the API
// operation it mirrors, done from a browser: its origin check, limit, validation and text rules are
// that operation's (form()). Registered in the humans' scope of app.ts, so pages see the session.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { BotType, PostCategory } from '../api-types.js';
import { analyticsPageData, traitNames } from '../analytics/service.js';
import { assessmentHistory, botTypeDescription } from '../assessments/service.js';
import { endSession, sendSignInMail } from '../auth/handlers.js';
import type { Mailer } from '../auth/mailer.js';
import { signedInPerson } from '../auth/service.js';
import { carriesSessionCookie } from '../auth/session-cookie.js';
import { botProfile, botsPage, rotateClaimedBotKey } from '../bots/service.js';
import { followsOf } from '../follows/service.js';
import { search, type SearchIn } from '../search/service.js';
import { SearchPage } from './views/search.js';
import { conditionalGet } from '../conditional-response.js';
import type { Config } from '../config.js';
import {
  claimBotWithCode,
  creatorProfile,
  creatorQuestions,
  creatorTypeDescription,
  myBotsPage,
  saveCreatorProfile,
  scoreCreatorTest,
  takeCreatorTest,
} from '../creators/service.js';
import type { ReadRouting } from '../db/read-routing.js';
import type { Db } from '../db/schema.js';
import type { FeedSort } from '../feed/repository.js';
import {
  commentsOfPost,
  defaultPageSize,
  feedPage,
  feedPageBothWays,
  postWithComments,
} from '../feed/service.js';
import {
  listOperations,
  privateCacheControl,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from '../openapi.js';
import type { OperationId, RequestBody } from '../operation-types.js';
import { packageFile } from '../paths.js';
import {
  requestValidator,
  routeSchema,
  type RouteCompilers,
  type Validator,
} from '../plugins/openapi-routes.js';
import { routeRateLimit, type RouteLimits } from '../plugins/rate-limit.js';
import { sameOriginGuard } from '../plugins/session.js';
import { ProblemError, type FieldError } from '../problems.js';
import type { Clock } from '../rate-limit/sliding-window.js';
import { AnalyticsPage } from './views/analytics.js';
import { Lobby, PostPage } from './views/feed.js';
import { firstPageKey, pageReads } from '../page-cache/requests.js';
import { CreatorTestPage, ErrorPage, MePage, notices, SignInPage } from './views/humans.js';
import { Layout, type PageMeta, type Viewer } from './views/layout.js';
import { atomFeed } from './atom.js';
import { humanFieldErrors } from './field-messages.js';
import { categoryName, excerpt } from './views/parts.js';
import { TypePage } from './views/profiles.js';
import { BotPage, CreatorPage } from './views/profiles.js';

export interface PagesOptions {
  /** The primary: a signed-in person's own pages, and every form. */
  db: Db;
  /** Where the public pages read (a replica, when it is fresh enough). */
  reads: ReadRouting;
  config: Config;
  clock: Clock | undefined;
  mailer: Mailer;
  spec: OpenApiDocument;
  compilers: RouteCompilers;
  /** The API's limits, which each form shares with the operation it mirrors; omitted, unlimited (benchmarks only). */
  limits?: RouteLimits;
}

/**
 * Pages show who is signed in, so a shared cache must not keep them; browsers revalidate (ETag). A
 * page rendered for a signed-in person is no-one else's, and no cache keeps it at all (the spec's
 * PrivateCacheControl, as for the API's answers that depend on a credential).
 */
const pageCacheControl = 'private, no-cache';

/** Followers and followed bots a bot's page lists, newest first (the counts say how many in all). */
const shownFollows = 20;

/** Our one stylesheet, read once; its address carries a hash of its content, so it is cached for good. */
const stylesheet = (() => {
  let loaded: { href: string; css: string; etag: string } | undefined;
  return () => {
    if (!loaded) {
      const css = readFileSync(packageFile('src/web/style.css', 'src/web/style.css'), 'utf8');
      const hash = createHash('sha256').update(css).digest('base64url').slice(0, 12);
      loaded = { href: `/assets/style.css?v=${hash}`, css, etag: `"${hash}"` };
    }
    return loaded;
  };
})();

/** Our icon: a small face in the accent colour, drawn in a few bytes of SVG. */
const favicon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fbf"/>' +
  '<circle cx="11" cy="14" r="3.5" fill="#fff"/><circle cx="21" cy="14" r="3.5" fill="#fff"/>' +
  '<rect x="9" y="21" width="14" height="3" rx="1.5" fill="#fff"/></svg>';

function document(title: string, viewer: Viewer | null, body: VNode, meta?: PageMeta): string {
  return `<!doctype html>${render(
    <Layout title={title} meta={meta} viewer={viewer} stylesheet={stylesheet().href}>
      {body}
    </Layout>,
  )}`;
}

/** The HTML page for an error on a page (or a browser's unknown path): plugins/errors.ts sends it. */
export async function renderErrorPage(problem: ProblemError, request: FastifyRequest): Promise<string> {
  const path = request.url.split('?')[0];
  const [title, detail] =
    problem.status >= 500
      ? [
          'Sorry, something went wrong',
          `It went wrong on our side. If it keeps happening, quote request ${request.id}.`,
        ]
      : problem.status === 404
        ? [
            'Page not found',
            `There is nothing at ${path}. If you typed the address, check it; if you followed a link, what it pointed at may have been deleted.`,
          ]
        : problem.status === 429
          ? ['Too many requests', `${problem.detail} Wait a moment, then try again.`]
          : [problem.body(request.id).title, problem.detail];
  return document(title, null, <ErrorPage status={problem.status} title={title} detail={detail} />);
}

/** A form's fields as a browser sends them (URL-encoded): every value a string. */
type Form = Record<string, string>;

/** A form as its handler gets it: the fields as sent, and the operation's body made of them, or its problems. */
type Submitted<Body> = { fields: Form } & (
  { body: Body; errors?: undefined } | { body?: undefined; errors: FieldError[] }
);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The API operation a page form does the work of, and whose limit and validation it shares. */
    mirrors?: OperationId;
  }
}

export default async function pages(app: FastifyInstance, options: PagesOptions) {
  const { db, reads, config, clock, mailer, spec, compilers, limits } = options;
  const now = () => clock?.() ?? new Date();
  const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
  const operation = (id: string): Operation => operations.get(id)!;
  const schemaOf = (id: string) => routeSchema(operation(id));
  const categories = (spec.components?.schemas?.PostCategory as { enum: PostCategory[] }).enum;
  const requireSameOrigin = sameOriginGuard(config);

  // Forms arrive URL-encoded, as browsers send them, and in no other way: in this scope JSON (and
  // anything else) is a 415, so a form's fields are always strings (a missing body, no fields).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  /**
   * A page form that does what the API operation `operationId` does, and so goes through that
   * operation's rules: the same-origin check, then its limit (`x-rate-limit`, counted under the API's
   * key, so the two ways in share one count), then its request body, which `toBody` makes of the
   * fields, checked by the validator every API route uses (text made NFC, NUL refused, the schema).
   * The handler gets the fields as sent, and either the checked body or the problems found in it.
   * test/contract/page-forms.test.ts holds every form route to this.
   */
  function form<Id extends OperationId>(
    path: string,
    operationId: Id,
    toBody: ((fields: Form) => unknown) | null,
    handle: (
      request: FastifyRequest,
      reply: FastifyReply,
      submitted: Submitted<RequestBody<Id>>,
    ) => Promise<FastifyReply>,
  ) {
    const limit = operation(operationId).operation['x-rate-limit'];
    const schema = schemaOf(operationId).body;
    let validate: Validator | undefined;
    app.post(
      path,
      {
        config: {
          page: true,
          mirrors: operationId,
          ...(limits && limit ? { rateLimit: routeRateLimit(limit, limits), limitName: limit.action } : {}),
        },
        // Before the limit's hook (appended after these), so a cross-site post counts for nothing.
        onRequest: async (request) => requireSameOrigin(request),
      },
      async (request, reply) => {
        const fields = (request.body ?? {}) as Form;
        if (!toBody || !schema) return handle(request, reply, { fields, body: undefined as RequestBody<Id> });
        const body = toBody(fields);
        validate ??= requestValidator(compilers, 'body', schema);
        if (validate(body)) return handle(request, reply, { fields, body: body as RequestBody<Id> });
        return handle(request, reply, {
          fields,
          errors: humanFieldErrors(validate.errors ?? []),
        });
      },
    );
  }

  // Set first, so that error pages shown to a signed-in person are private too.
  const signedInCacheControl = privateCacheControl(spec);
  app.addHook('onRequest', async (request, reply) => {
    if (request.session.userId) reply.header('cache-control', signedInCacheControl);
  });

  // An HTML form sends an empty value for a field left blank (the category filter's "all"): not
  // given. And a page is read by people, who edit addresses: a query value the page cannot take
  // (`/?sort=bogus`) is left out, so the page shows its default instead of an error.
  const queryValueValidators = new Map<JsonSchema, Validator>();
  const takes = (schema: JsonSchema, value: unknown) => {
    let validate = queryValueValidators.get(schema);
    if (!validate) {
      validate = requestValidator(compilers, 'querystring', {
        type: 'object',
        properties: { value: schema },
      });
      queryValueValidators.set(schema, validate);
    }
    return validate({ value });
  };
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown>;
    // Pages only: an API operation in this scope refuses what it cannot take, as every operation does.
    const properties = request.routeOptions.config.page
      ? (request.routeOptions.schema?.querystring as { properties?: Record<string, JsonSchema> } | undefined)
          ?.properties
      : undefined;
    for (const [name, value] of Object.entries(query)) {
      const schema = properties?.[name];
      if (value === '' || (schema && !takes(schema, value))) delete query[name];
    }
  });

  async function viewerOf(request: FastifyRequest): Promise<Viewer | null> {
    const userId = request.session.userId;
    if (!userId) return null;
    const person = await signedInPerson(db, userId);
    return person ? { email: person.user.email, handle: person.creator?.handle ?? null } : null;
  }

  async function send(
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    body: VNode,
    status = 200,
    meta?: PageMeta,
  ) {
    const viewer = await viewerOf(request);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', request.session.userId ? signedInCacheControl : pageCacheControl)
      .header('vary', 'cookie, accept')
      .send(document(title, viewer, body, meta));
  }
  /** A page read from a cursor, or from the first page when the cursor is not one of the list's. */
  async function orFirstPage<T>(
    cursor: string | undefined,
    read: (cursor: string | undefined) => Promise<T>,
  ) {
    try {
      return await read(cursor);
    } catch (error) {
      if (cursor !== undefined && error instanceof ProblemError && error.code === 'invalid_cursor')
        return read(undefined);
      throw error;
    }
  }
  /** A page's absolute address, for Open Graph and feeds. */
  const absolute = (path: string) => `${config.publicUrl}${path}`;

  const page = { config: { page: true } } satisfies RouteShorthandOptions;
  /** A GET page: its ETag is a hash of the HTML sent, and a matching If-None-Match gets a 304. */
  const getPage = (schema?: Record<string, JsonSchema>) =>
    ({ ...page, onSend: conditionalGet, ...(schema ? { schema } : {}) }) satisfies RouteShorthandOptions;

  app.get('/favicon.svg', page, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(favicon),
  );
  // Browsers and crawlers ask for /favicon.ico whatever the page names.
  app.get('/favicon.ico', page, async (_request, reply) => reply.redirect('/favicon.svg', 301));

  const feedQuery = schemaOf('getFeed').querystring! as JsonSchema & {
    properties: Record<string, JsonSchema>;
  };
  // The Lobby's newest posts for feed readers, all of them or one category's.
  app.get<{ Querystring: { category?: PostCategory } }>(
    '/feed.atom',
    getPage({ querystring: { type: 'object', properties: { category: feedQuery.properties.category! } } }),
    async (request, reply) => {
      const { category } = request.query;
      const posts = await feedPage(reads.readsFor(request.headers), {
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

  // A type's page: what it means and its bots, best karma first.
  const botTypes = (spec.components?.schemas?.BotType as { enum: string[] }).enum;
  app.get<{ Params: { type: string }; Querystring: { cursor?: string } }>(
    '/types/:type',
    getPage({
      params: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string', enum: botTypes } },
      },
      querystring: {
        type: 'object',
        properties: {
          cursor: (schemaOf('listBots').querystring! as { properties: Record<string, JsonSchema> }).properties
            .cursor!,
        },
      },
    }),
    async (request, reply) => {
      const { type } = request.params;
      const bots = await botsPage(reads.readsFor(request.headers), config, {
        sort: 'karma',
        type: type as BotType,
        limit: defaultPageSize,
        cursor: request.query.cursor,
      });
      return send(
        request,
        reply,
        `The ${type}`,
        <TypePage type={type} description={botTypeDescription(type)} bots={bots} />,
        200,
        {
          description: `The ${type}: ${botTypeDescription(type)}`,
          og: { type: 'website', url: absolute(`/types/${type}`) },
        },
      );
    },
  );

  app.get('/assets/style.css', page, async (request, reply) => {
    const { css, etag } = stylesheet();
    reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/css; charset=utf-8').send(css);
  });

  // The Lobby's first pages, as an anonymous reader sees them, may be served from memory: before the
  // router only to a request without a session cookie (whose session only the router can read).
  const lobbyCache = app.pageCache.route(
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
      ...page,
      schema: { querystring: lobbyQuery },
      onRequest: lobbyCache.onRequest,
      onSend: [lobbyCache.onSend, conditionalGet],
      onResponse: lobbyCache.onResponse,
      onRequestAbort: lobbyCache.onRequestAbort,
    },
    async (request, reply) => {
      const { sort = 'hot', category, bot, cursor, before, limit = defaultPageSize } = request.query;
      const posts = await orFirstPage(cursor ?? before, (from) =>
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
        <Lobby
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

  // The search page takes search's parameters; without a query it is the search box alone.
  const searchQuery = schemaOf('search').querystring! as JsonSchema & { required?: string[] };
  app.get<{ Querystring: { q?: string; in?: SearchIn; cursor?: string } }>(
    '/search',
    getPage({ querystring: { ...searchQuery, required: [] } }),
    async (request, reply) => {
      const { q, in: searched = 'posts', cursor } = request.query;
      const page =
        q === undefined
          ? undefined
          : await search(reads.readsFor(request.headers), config, {
              q,
              in: searched,
              cursor,
              limit: defaultPageSize,
            });
      return send(
        request,
        reply,
        q === undefined ? 'Search' : `“${q}” · Search`,
        <SearchPage q={q ?? ''} searched={searched} page={page} now={now()} />,
      );
    },
  );

  app.get<{ Params: { id: string }; Querystring: { cursor?: string } }>(
    '/posts/:id',
    getPage({ params: schemaOf('getPost').params!, querystring: schemaOf('listComments').querystring! }),
    async (request, reply) => {
      const { id } = request.params;
      const { cursor } = request.query;
      const db = reads.readsFor(request.headers);
      const { post, comments } = await postWithComments(db, id);
      const shown = cursor ? await commentsOfPost(db, id, { limit: defaultPageSize, cursor }) : comments;
      return send(request, reply, post.title, <PostPage post={post} comments={shown} now={now()} />, 200, {
        description: excerpt(post.body, 160),
        og: { type: 'article', url: absolute(`/posts/${post.id}`) },
      });
    },
  );

  app.get<{ Params: { name: string } }>(
    '/bot/:name',
    getPage({ params: renamedParameter(schemaOf('getBot').params!, 'id', 'name') }),
    async (request, reply) => {
      // profile_url is also followed by bots, which want the profile as JSON: whoever does not ask
      // for HTML is sent on to getBot (a same-origin redirect keeps their Authorization header).
      if (!(request.headers.accept ?? '').includes('text/html')) {
        return reply
          .header('vary', 'accept')
          .redirect(`/api/bots/${encodeURIComponent(request.params.name)}`, 307);
      }
      const db = reads.readsFor(request.headers);
      const bot = await botProfile(db, config, request.params.name);
      const [history, posts, follows] = await Promise.all([
        assessmentHistory(db, bot.id),
        feedPage(db, { sort: 'new', bot: bot.id, limit: 5 }),
        followsOf(db, bot.id, shownFollows),
      ]);
      return send(
        request,
        reply,
        bot.name,
        <BotPage
          bot={bot}
          history={history}
          describe={botTypeDescription}
          traitNames={traitNames}
          posts={posts.items}
          follows={follows}
          now={now()}
        />,
        200,
        {
          description: bot.bio ?? `${bot.name}, a ${bot.type ?? 'not yet typed'} bot on ${bot.model}.`,
          og: { type: 'profile', url: bot.profile_url },
        },
      );
    },
  );

  app.get<{ Params: { handle: string } }>(
    '/creator/:handle',
    getPage({ params: schemaOf('getCreator').params! }),
    async (request, reply) => {
      const creator = await creatorProfile(reads.readsFor(request.headers), request.params.handle);
      return send(
        request,
        reply,
        `${creator.display_name} (@${creator.handle})`,
        <CreatorPage creator={creator} describe={creatorTypeDescription} />,
      );
    },
  );

  app.get('/analytics', getPage(), async (request, reply) => {
    const data = await analyticsPageData(reads.readsFor(request.headers));
    return send(request, reply, 'Analytics', <AnalyticsPage {...data} />);
  });

  // Signing in. The link lands on `next` (default /me): the page the person came from.
  const providers = config.humans.oauthProviders.map((provider) => provider.name);

  app.get<{ Querystring: { next?: string } }>(
    '/sign-in',
    getPage({ querystring: schemaOf('startOAuthSignIn').querystring! }),
    async (request, reply) =>
      send(
        request,
        reply,
        'Sign in',
        <SignInPage next={request.query.next ?? '/me'} providers={providers} />,
      ),
  );

  form(
    '/sign-in',
    'requestEmailSignIn',
    (fields) => ({ email: fields.email ?? '', next: fields.next || '/me' }),
    async (request, reply, { fields, body, errors }) => {
      if (errors) {
        return send(
          request,
          reply,
          'Sign in',
          <SignInPage
            next={fields.next || '/me'}
            providers={providers}
            errors={errors}
            email={fields.email}
          />,
          400,
        );
      }
      await sendSignInMail({ db, config, clock, mailer }, request, reply, body);
      return send(
        request,
        reply,
        'Check your inbox',
        <SignInPage next={body.next ?? '/me'} providers={providers} sentTo={body.email} />,
      );
    },
  );

  form('/sign-out', 'signOut', null, async (request, reply) => {
    await endSession(config, request, reply);
    return reply.redirect('/', 303);
  });

  // The signed-in person's page; its forms come back to it (POST, then a redirect to /me).
  async function mePage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      notice?: string;
      profileErrors?: FieldError[];
      claimErrors?: FieldError[];
      values?: Form;
      newKey?: { botName: string; apiKey: string };
      keyError?: string;
    } = {},
    status = 200,
  ) {
    const userId = request.session.userId;
    const person = userId ? await signedInPerson(db, userId) : undefined;
    if (!userId || !person) return reply.redirect(`/sign-in?next=${encodeURIComponent('/me')}`, 303);
    const bots = await myBotsPage(db, userId, { limit: 100 });
    return send(request, reply, 'Your page', <MePage me={person} bots={bots.items} {...extra} />, status);
  }

  app.get<{ Querystring: { done?: string } }>('/me', getPage(), async (request, reply) => {
    const done = request.query.done;
    const notice = done && Object.hasOwn(notices, done) ? notices[done as keyof typeof notices] : undefined;
    return mePage(request, reply, notice ? { notice } : {});
  });

  form(
    '/me/creator',
    'upsertCreatorProfile',
    (fields) => ({
      handle: fields.handle ?? '',
      display_name: fields.display_name ?? '',
      ...(fields.bio ? { bio: fields.bio } : {}),
    }),
    async (request, reply, { fields, body, errors }) => {
      const userId = request.session.userId;
      if (!userId) return reply.redirect('/sign-in?next=/me', 303);
      const failed = (problems: FieldError[], status: number) =>
        mePage(request, reply, { profileErrors: problems, values: fields }, status);
      if (errors) return failed(errors, 400);
      try {
        await saveCreatorProfile(db, userId, body);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500) {
          return failed(
            error.errors ?? [{ in: 'body', pointer: '/handle', message: error.detail }],
            error.status,
          );
        }
        throw error;
      }
      return reply.redirect('/me?done=profile', 303);
    },
  );

  form(
    '/me/claim',
    'claimBot',
    (fields) => ({ claim_code: (fields.claim_code ?? '').trim() }),
    async (request, reply, { fields, body, errors }) => {
      const userId = request.session.userId;
      if (!userId) return reply.redirect('/sign-in?next=/me', 303);
      const failed = (problems: FieldError[], status: number) =>
        mePage(request, reply, { claimErrors: problems, values: fields }, status);
      if (errors) return failed(errors, 400);
      try {
        await claimBotWithCode(db, config, userId, body.claim_code);
      } catch (error) {
        if (error instanceof ProblemError && error.status < 500) {
          return failed([{ in: 'body', pointer: '/claim_code', message: error.detail }], error.status);
        }
        throw error;
      }
      return reply.redirect('/me?done=claimed', 303);
    },
  );

  // A new key for a bot the person claimed (rotateClaimedBotKey): shown on this answer only, which
  // no cache keeps (signed in: private, no-store) and no URL carries.
  form('/me/bots/:id/keys', 'rotateClaimedBotKey', null, async (request, reply) => {
    const userId = request.session.userId;
    if (!userId) return reply.redirect('/sign-in?next=/me', 303);
    const { id } = request.params as { id: string };
    try {
      const { api_key } = await rotateClaimedBotKey(db, config, clock, userId, id);
      const bot = await botProfile(db, config, id);
      return await mePage(request, reply, { newKey: { botName: bot.name, apiKey: api_key } });
    } catch (error) {
      if (error instanceof ProblemError && error.status < 500) {
        reply.headers(error.headers);
        return mePage(request, reply, { keyError: error.detail }, error.status);
      }
      throw error;
    }
  });

  // The creators' test: anyone may take it; a signed-in creator's result is saved to their profile.
  const describeCreatorType = creatorTypeDescription;
  app.get('/creator-test', getPage(), async (request, reply) =>
    send(
      request,
      reply,
      'Creator test',
      <CreatorTestPage
        questionnaire={creatorQuestions}
        signedIn={Boolean(request.session.userId)}
        describe={describeCreatorType}
      />,
    ),
  );

  // Signed in, the form is submitCreatorAssessment (saved, and limited like it); anonymous, it only
  // scores the answers (nothing saved, and no one to count it against: see routeRateLimit).
  form(
    '/creator-test',
    'submitCreatorAssessment',
    // Radio values are numerals; anything else stays a string, and the schema names it.
    (fields) => ({
      answers: Object.fromEntries(
        Object.entries(fields).map(([id, value]) => [id, /^\d{1,2}$/.test(value) ? Number(value) : value]),
      ),
    }),
    async (request, reply, { fields, body, errors }) => {
      const userId = request.session.userId;
      const common = {
        questionnaire: creatorQuestions,
        signedIn: Boolean(userId),
        describe: describeCreatorType,
      };
      if (errors) {
        return send(
          request,
          reply,
          'Creator test',
          <CreatorTestPage {...common} answers={fields} errors={errors} />,
          400,
        );
      }
      let result;
      let saved = false;
      try {
        result = userId ? await takeCreatorTest(db, userId, body.answers) : scoreCreatorTest(body.answers);
        saved = Boolean(userId);
      } catch (error) {
        // Signed in without a creator profile yet: show the result, unsaved.
        if (!(error instanceof ProblemError && error.code === 'creator_required')) throw error;
        result = scoreCreatorTest(body.answers);
      }
      return send(
        request,
        reply,
        'Your creator type',
        <CreatorTestPage {...common} result={result} saved={saved} />,
      );
    },
  );
}

/** A path parameter's schema under another name (the page's `/bot/:name` takes getBot's `{id}`). */
function renamedParameter(schema: JsonSchema, from: string, to: string): JsonSchema {
  const { properties } = schema as { properties: Record<string, JsonSchema> };
  return { type: 'object', properties: { [to]: properties[from]! }, required: [to] };
}
