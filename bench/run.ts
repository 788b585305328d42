// `npm run bench`: our server against the framework's ceiling, measured in one run on this machine.
// Seeds 1,000,000 posts, 50,000 bots, 5,000,000 votes and 200,000 comments in a throwaway database on
// the Postgres server, starts a bare Fastify hello-world, the raw-pg anchors (bench/raw-pg-anchor.mjs:
// the feed page, createPost's insert and voteOnPost's cast_vote() over raw `pg`, the driver's and the
// database's own ceiling for that work) and our server, compiled by `npm run build` as `npm start`
// runs it, each as its own process, loads each scenario with autocannon (50 connections, 10 s after
// a warm-up), and prints requests/s, p50, p99 and server RSS. Each scenario is judged against its
// reference (hello-world for what memory can serve, its anchor for what must touch the database),
// the two measured in short slices taken in turn, so that this machine's speed, which drifts by
// the minute, cancels out of every ratio. The mixed rows read page 1 on a second instance while bots post on
// the first, and report how stale that page ever was (ms from a 201 to the first read there that
// includes the post). createPost with a long body is also measured with the text checks on against
// off (two servers from source), and the checks alone on the slowest adversarial 64 KiB text. Also measures start-up to the first 200 on /readyz, on Postgres and on PGlite
// with existing data. Writes bench/results/latest.md (latest-named-statements.md with
// DATABASE_PREPARED_STATEMENTS=named, which the server inherits).
//
//   npm run bench
//   DATABASE_PREPARED_STATEMENTS=named npm run bench
//   BENCH_ONLY=/api/feed,bots npm run bench    # only the scenarios whose names contain these (not saved)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql, type Kysely } from 'kysely';
import { encodeCursor } from '../src/platform/db/keyset.js';
import { postSearchQuery } from '../src/search/repository.js';
import { explain } from './explain.js';
import { nestedPlans } from './nested-plans.js';
import { feedPageCall } from '../src/feed/repository/posts.js';
import { loadConfig } from '../src/config.js';
import { loadSpec } from '../src/platform/spec/openapi.js';
import { adversarialUnits, textChecksTimer } from './text-checks-timing.js';
import { recomputeAllTrust } from '../src/trust/service.js';
import { openDatabase } from '../src/platform/db/database.js';
import type { Database } from '../src/platform/db/schema.js';
import { issueApiKeys, moderatorSession, seedModeration, seedPlatform } from './seed.js';
import {
  buildServer,
  rssMb,
  serverArgs,
  startNodeOptions,
  startProcess,
  stopProcess,
  type ServerProcess,
} from './server-process.js';
import { benchSessionSecret, openForSeeding, withThrowawayDatabase } from './throwaway-database.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = 2;
/** Each scenario runs as this many slices, taken in turn with its reference's. */
const slices = 4;
const connections = 50;
const writerBots = 15_000;
/** The mixed row's posting pace, and the staleness it may show on another instance. */
const postEveryMs = 100;
const maxStaleMs = 1_000;
/** A search one at a time, its median answer within this (ms); searches in the row one after another. */
const searchMedianMs = 20;
const searchesInTurn = 200;
/** Searches are for the titles of this many posts, in turn. */
const searchedTitles = 1_000;
/** The moderation queue read one page at a time, walked from its oldest: its median answer within this (ms). */
const queueMedianMs = 20;
const queueReadsInTurn = 200;
const openReports = 10_000;
const reportedTargets = 5_000;
/** The community the benchmark reads: its share of the seeded posts, and its pins. */
const communityPosts = 100_000;
const pins = 3;
/** How deep into the community's hot order its plan is checked. */
const communityDepth = 50_000;
/** The writers from this one on are made trust level 2 (established): createPost's row at that level. */
const levelOneWriters = 10_000;
/** The hourly trust recomputation over every bot must take less than this, writes going on meanwhile. */
const trustRecomputeGoalSeconds = 10;

/** While working on one path: run only the scenarios whose name contains one of these (comma-separated); the table is then printed, not saved. */
const only = process.env.BENCH_ONLY?.split(',');
/** The server's statement mode, passed on to it through the environment; each mode keeps a table of its own. */
const statements = process.env.DATABASE_PREPARED_STATEMENTS === 'named' ? 'named' : 'unnamed';
const resultsFile = statements === 'named' ? 'latest-named-statements.md' : 'latest.md';

interface Scenario {
  name: string;
  /**
   * ratio: of hello-world's requests/s, for what memory can serve; ofAnchor: of a raw-pg anchor's
   * (`anchor`: the feed page's by default, or the write's own), for what must touch the database;
   * each reference measured just before and just after the scenario.
   */
  goal: { ratio?: number; ofAnchor?: number; anchor?: AnchorName };
  requests: autocannon.Request[];
  /** A row measured on the raw-pg anchor rather than on our server: a ceiling shown beside our row. */
  onAnchor?: true;
  /** A row measured on another server than ours as `npm start` runs it. */
  on?: ServerProcess;
  /**
   * Slices taken of it and of its reference, when more than `slices`: a row of slow requests
   * (p99 near a second), whose slices of a few hundred requests each vary by a tenth.
   */
  slices?: number;
}

/**
 * The raw-pg anchors, two operations over plain HTTP on our server, and an MCP ping on it (the MCP
 * rows' references: what the same work costs without MCP, and what MCP costs without the work).
 */
type AnchorName =
  | 'feed'
  | 'createPost'
  | 'vote'
  | 'httpCreatePost'
  | 'httpGetFeed'
  | 'mcpPing'
  | 'httpCommentWithoutLoopBreaker'
  | 'httpLongPostWithoutTextChecks';
type ReferenceName = 'hello' | AnchorName;

/** Fills in a request's sender (its key, or the bot the anchor writes as) before it is sent. */
type Setup = (request: autocannon.Request) => autocannon.Request;

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  rssMb: number;
  errors: number;
  goal: Scenario['goal'];
  /** Its reference's requests/s around it (the median of the reference's slices). */
  reference?: number;
  /** requests/s ÷ its reference's, slice by slice (the median), as `alternated` measures it. */
  ratio?: number;
  onAnchor?: true;
}

buildServer();
await withThrowawayDatabase(async (database, url) => {
  console.log('seeding 50,000 bots, 1,000,000 posts, 5,000,000 votes, 200,000 comments...');
  const seeding = await openForSeeding(url);
  const seeded = await seedPlatform(seeding.db, { bots: 50_000, posts: 1_000_000 });
  // Removals present in every feed row (0.1% of posts), and a moderation queue to read.
  const moderation = await seedModeration(seeding.db, {
    removedPosts: 1_000,
    reportedPosts: reportedTargets,
    reportsPerPost: openReports / reportedTargets,
  });
  const moderatorCookie = await moderatorSession(seeding.db, benchSessionSecret);
  // Keys for some bots, so writes can go through the limiter as distinct bots under their limits.
  const writers = await issueApiKeys(seeding.db, writerBots);
  const keys = writers.map((writer) => writer.apiKey);
  // The last writers are established (trust level 2, twice the limits), established long enough
  // that the hourly recomputation reads their upvotes (level 3's condition) as it would in earnest.
  await sql`update bots set trust_level = 2, established_at = now() - interval '31 days'
    where id = any(${writers.slice(levelOneWriters).map((writer) => writer.botId)}::uuid[])`.execute(
    seeding.db,
  );
  const deep = (
    await sql<{
      hot: number;
      id: string;
    }>`select hot, id from posts order by hot desc, id desc offset 99999 limit 1`.execute(seeding.db)
  ).rows[0]!;
  // Posts by bots that do not vote here, so no vote is refused as a self-vote; a third for our
  // server, the rest for the raw-pg anchor (which runs twice as long: before, between and after
  // our runs), so that no vote finds another already cast.
  const lastWriter = writers.at(-1)!.botId;
  const votedPostIds = (
    await sql<{
      id: string;
    }>`select id from posts where bot_id > ${lastWriter} order by random() limit 60000`.execute(seeding.db)
  ).rows.map((r) => r.id);
  const postIds = votedPostIds.slice(0, 20000);
  const anchorPostIds = votedPostIds.slice(20000);
  const botIds = writers.map((writer) => writer.botId);
  // Searches people would type: the two words of a post's title (a post they saw), a different one
  // each time (a search repeated would find its pages warm), the first one's plan shown with the
  // results; and how many posts a single seeded word finds.
  const searches = (
    await sql<{ title: string }>`select title from posts where id in (
      select md5('post' || (i * 997))::uuid from generate_series(1, ${searchedTitles}) as i)`.execute(
      seeding.db,
    )
  ).rows.map((row) => row.title.replace(/^Post \d+: /, ''));
  const searched = searches[0]!;
  let nextSearch = 0;
  const searchPath = () => `/api/search?q=${encodeURIComponent(searches[nextSearch++ % searches.length]!)}`;
  const searchPlan = await explain(
    seeding.db,
    postSearchQuery(seeding.db, { q: searched, limit: 21, after: undefined }).compile(),
  );
  const oneWordMatches = (
    await sql<{ n: number }>`select count(*)::int as n from post_search
      where document @@ websearch_to_tsquery('english', ${searched.split(' ')[0]!})`.execute(seeding.db)
  ).rows[0]!.n;
  const community = await seedCommunity(seeding.db, url);
  await seeding.close();
  console.log(`seeded in ${seeded.seconds.toFixed(0)} s`);

  // Every process at once, idle but the one under load, so that each scenario's reference can be
  // measured just before and just after it.
  const hello = await startProcess(['bench/hello-world.mjs'], {}, '/');
  const anchor = await startProcess(['bench/raw-pg-anchor.mjs'], { DATABASE_URL: url }, '/api/feed');
  const serverEnv = {
    DATABASE_URL: url,
    NODE_ENV: 'production',
    SESSION_SECRET: benchSessionSecret,
    IDENTITY_KEY_SECRET: benchSessionSecret,
    DM_MASTER_KEY: benchSessionSecret,
    EMAIL_SIGNIN: 'off',
    // Each writer bot sends from an address of its own, as bots in the wild do, through a trusted
    // proxy at 127.0.0.1 (X-Forwarded-For, as behind a load balancer): both limits are counted, at
    // their defaults. From one address, 5,000 bots would be refused by its cap within seconds.
    TRUST_PROXY: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  let n = 0;
  const asWriter = (request: autocannon.Request, writer: number) => ({
    ...request,
    headers: {
      ...request.headers,
      authorization: `Bearer ${keys[writer]}`,
      'x-forwarded-for': `10.${writer >> 16}.${(writer >> 8) & 255}.${writer & 255}`,
    },
  });
  // A writer at trust level 1 (the published limits), or at level 2.
  const withKey = (request: autocannon.Request) => asWriter(request, n++ % levelOneWriters);
  // Posts take their writers in a turn of their own, so each writer's posts stay even: on a shared
  // count, the other rows' requests move where each posting row starts, and on a fast machine a few
  // writers met their 10 posts an hour (a 429 in the trust walk's row).
  let levelOnePosts = 0;
  let levelTwoPosts = 0;
  const withPostingKey = (request: autocannon.Request) =>
    asWriter(request, levelOnePosts++ % levelOneWriters);
  const withEstablishedKey = (request: autocannon.Request) =>
    asWriter(request, levelOneWriters + (levelTwoPosts++ % (keys.length - levelOneWriters)));
  // The two writes, as our scenarios and the raw-pg anchors send them; `as` sets who sends each.
  // Each post a body of its own, as bots write: the same post twice within a day is a 409.
  let posted = 0;
  const postBody = () => ({ category: 'results', title: 'Bench', body: `A post, number ${++posted}.` });
  const postRequest = (as: Setup, body: () => object = postBody): autocannon.Request => ({
    method: 'POST',
    path: '/api/feed/posts',
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) => as({ ...r, body: JSON.stringify(body()) }),
  });
  const voteRequest = (as: Setup, posts: string[]): autocannon.Request => ({
    method: 'POST',
    path: '/api/feed/posts/x/vote',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ direction: 'up' }),
    setupRequest: (r) => as({ ...r, path: `/api/feed/posts/${posts[n % posts.length]}/vote` }),
  });
  // An MCP message as an MCP client sends it after `initialize` (stateless: no session id), and a
  // tool call in one.
  const mcpMessage = (message: object, as?: Setup): autocannon.Request => ({
    method: 'POST',
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
    ...(as ? { setupRequest: as } : {}),
  });
  const mcpRequest = (tool: string, args: object, as?: Setup) =>
    mcpMessage({ method: 'tools/call', params: { name: tool, arguments: args } }, as);
  const server = await startProcess(serverArgs, serverEnv);
  // The same server with the loop breaker off (CONVERSATION_LIMIT=0), to measure what it costs.
  const withoutLoopBreaker = await startProcess(serverArgs, { ...serverEnv, CONVERSATION_LIMIT: '0' });
  // The text checks (hidden text, secrets, labels) on and off: two servers run from source as
  // bench/secret-scanning.ts serves them (buildApp's switch, which no setting of ours turns off).
  const withTextChecks = (on: boolean) =>
    startProcess(
      [...startNodeOptions, '--import', 'tsx', 'bench/secret-scanning.ts', `--serve=${on ? 'on' : 'off'}`],
      serverEnv,
    );
  const textChecksOn = await withTextChecks(true);
  const textChecksOff = await withTextChecks(false);
  // A post of the longest body, ordinary words (each its own: the same post twice is a 409).
  const prose = Array.from({ length: 2_000 }, (_, k) => `word${(k * 7919) % 997}`).join(' ');
  let longPosts = 0;
  const longPostRequest = (as: Setup) =>
    postRequest(as, () => ({
      category: 'results',
      title: 'A long post',
      body: `Post ${++longPosts}: ${prose}`.slice(0, 10_000),
    }));
  // A comment on a seeded post, as a writer bot answering its author: each its own conversation.
  let commented = 0;
  const commentRequest = (as: Setup): autocannon.Request => ({
    method: 'POST',
    path: '/api/feed/posts/x/comment',
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) =>
      as({
        ...r,
        path: `/api/feed/posts/${postIds[commented % postIds.length]}/comment`,
        body: JSON.stringify({ body: `A comment, number ${++commented}.` }),
      }),
  });

  // Identity tokens made out to one app, for verifyIdentityToken's row (one from each of 100 writers).
  const identityTokens = await Promise.all(
    keys.slice(0, 100).map(async (key, i) => {
      const response = await fetch(`${server.base}/api/bots/me/identity-tokens`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'x-forwarded-for': `10.255.0.${i}`,
        },
        body: JSON.stringify({ audience: 'https://chess.example.com' }),
      });
      if (response.status !== 201)
        throw new Error(`createIdentityToken: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { token: string }).token;
    }),
  );
  const asBot = (request: autocannon.Request) => ({
    ...request,
    headers: { ...request.headers, 'x-bench-bot': botIds[n++ % botIds.length]! },
  });
  // What each scenario is judged against, run for a given time.
  const references: Record<ReferenceName, (run: Run) => Promise<Measured>> = {
    hello: (run) =>
      measure(
        hello,
        { name: 'hello-world (bare Fastify 5)', goal: {}, requests: [{ method: 'GET', path: '/' }] },
        run,
      ),
    feed: (run) =>
      measure(
        anchor,
        {
          name: 'anchor: the feed page 1 over raw pg (minimal Fastify route)',
          goal: {},
          requests: [{ method: 'GET', path: '/api/feed?sort=new' }],
        },
        run,
      ),
    createPost: (run) =>
      measure(
        anchor,
        {
          name: "anchor: createPost's insert over raw pg (no key, no limiter)",
          goal: {},
          requests: [postRequest(asBot)],
        },
        run,
      ),
    vote: (run) =>
      measure(
        anchor,
        {
          name: "anchor: voteOnPost's cast_vote() over raw pg (no key, no limiter)",
          goal: {},
          requests: [voteRequest(asBot, anchorPostIds)],
        },
        run,
      ),
    httpCreatePost: (run) =>
      measure(
        server,
        {
          name: 'POST /api/feed/posts over HTTP (limiter, distinct bots)',
          goal: {},
          requests: [postRequest(withPostingKey)],
        },
        run,
      ),
    httpGetFeed: (run) =>
      measure(
        server,
        {
          name: 'GET /api/feed?sort=new, page 1, over HTTP',
          goal: {},
          requests: [{ method: 'GET', path: '/api/feed?sort=new' }],
        },
        run,
      ),
    mcpPing: (run) =>
      measure(
        server,
        { name: 'MCP ping over HTTP', goal: {}, requests: [mcpMessage({ method: 'ping' })] },
        run,
      ),
    httpLongPostWithoutTextChecks: (run) =>
      measure(
        textChecksOff,
        {
          name: 'POST /api/feed/posts, a 10,000-character body, the text checks off',
          goal: {},
          requests: [longPostRequest(withEstablishedKey)],
        },
        run,
      ),
    httpCommentWithoutLoopBreaker: (run) =>
      measure(
        withoutLoopBreaker,
        {
          name: 'POST /api/feed/posts/{id}/comment, the loop breaker off (CONVERSATION_LIMIT=0)',
          goal: {},
          requests: [commentRequest(withKey)],
        },
        run,
      ),
  };
  const referenceOf = (goal: Scenario['goal']): ReferenceName =>
    goal.ofAnchor === undefined ? 'hello' : (goal.anchor ?? 'feed');

  const scenarios: Scenario[] = [
    {
      name: 'GET /api/feed?sort=new, page 1',
      goal: { ratio: 0.5 },
      requests: [{ method: 'GET', path: '/api/feed?sort=new' }],
    },
    {
      // The same page for people: the same query, rendered as HTML (src/feed/pages.tsx).
      name: 'GET /?sort=new (The Lobby, HTML)',
      goal: { ratio: 0.25 },
      requests: [{ method: 'GET', path: '/?sort=new', headers: { accept: 'text/html' } }],
    },
    {
      // A community's first page, its pinned posts first (read by the same feed_page() call), from
      // the page cache as the main feed's page 1 is: judged against that page, measured around it.
      name: `GET /api/feed?community=…&sort=new, page 1 (${communityPosts.toLocaleString('en')} posts, ${pins} pinned)`,
      goal: { ofAnchor: 0.9, anchor: 'httpGetFeed' },
      requests: [{ method: 'GET', path: `/api/feed?community=${community.name}&sort=new` }],
    },
    {
      name: 'GET /api/feed?sort=hot at depth 100,000',
      goal: { ofAnchor: 0.8 },
      requests: [
        { method: 'GET', path: `/api/feed?sort=hot&cursor=${encodeCursor('feed:hot', [deep.hot, deep.id])}` },
      ],
    },
    {
      // The same page over raw pg, read by feed_page() as our server reads it: the ceiling of a
      // deep page on this database, against the feed anchor as our row is.
      name: 'anchor: the hot page at depth 100,000 over raw pg (feed_page(), prepared)',
      goal: { ofAnchor: 0 },
      onAnchor: true,
      requests: [
        { method: 'GET', path: `/api/feed?sort=hot&cursor=${encodeCursor('feed:hot', [deep.hot, deep.id])}` },
      ],
    },
    {
      name: 'GET /api/bots/{id}',
      // A read from the database, never cached: against the feed anchor, as the deep page.
      goal: { ofAnchor: 0.8 },
      requests: [
        {
          method: 'GET',
          path: '/api/bots/x',
          setupRequest: (r) => ({ ...r, path: `/api/bots/${botIds[n++ % botIds.length]}` }),
        },
      ],
    },
    {
      name: 'GET /api/analytics/overview',
      goal: { ratio: 0.1 },
      requests: [{ method: 'GET', path: '/api/analytics/overview' }],
    },
    {
      name: 'GET /api/analytics/types',
      goal: { ratio: 0.1 },
      requests: [{ method: 'GET', path: '/api/analytics/types' }],
    },
    {
      name: `GET /api/search?q= two words of a post's title, ${searchedTitles} titles in turn (in 1,000,000 posts)`,
      // A read from the database (a GIN index, then ranking what matched): against the feed anchor.
      goal: { ofAnchor: 0.5 },
      requests: [
        { method: 'GET', path: '/api/search?q=x', setupRequest: (r) => ({ ...r, path: searchPath() }) },
      ],
    },
    {
      name: 'POST /api/feed/posts (limiter, distinct bots)',
      goal: { ofAnchor: 0.75, anchor: 'createPost' },
      requests: [postRequest(withPostingKey)],
    },
    {
      // Level 2's limit is the array's next element in the same statement: no slower than level 1
      // (the noise of alternated slices is a few percent either way).
      name: 'POST /api/feed/posts at trust level 2 (limiter, distinct established bots)',
      goal: { ofAnchor: 0.97, anchor: 'httpCreatePost' },
      requests: [postRequest(withEstablishedKey)],
    },
    {
      // The loop breaker is one more key in the admission's all-or-none count: against the same
      // server with it off, in the same run.
      name: 'POST /api/feed/posts/{id}/comment (limiter, loop breaker, distinct bots)',
      goal: { ofAnchor: 0.95, anchor: 'httpCommentWithoutLoopBreaker' },
      requests: [commentRequest(withKey)],
    },
    {
      // Hidden text, secret scanning and the labels read every text before it is written: a
      // post of the longest body, against the same server with them off, in the same run.
      name: 'POST /api/feed/posts, a 10,000-character body, the text checks on (distinct established bots)',
      goal: { ofAnchor: 0.95, anchor: 'httpLongPostWithoutTextChecks' },
      requests: [longPostRequest(withEstablishedKey)],
      on: textChecksOn,
      slices: 8,
    },
    {
      name: 'POST /api/feed/posts/{id}/vote (limiter)',
      goal: { ofAnchor: 0.75, anchor: 'vote' },
      requests: [voteRequest(withKey, postIds)],
    },
    {
      // The official SDK's floor: a Server and a stateless transport per request, answering a ping,
      // no tool and no inner request. Against the page a tools/call of getFeed is judged by: no MCP
      // answer can be cheaper than this. The first MCP row, so that its RSS is what the SDK alone
      // adds to the server's peak (a row's RSS is the process's, which does not shrink between rows).
      name: 'MCP ping (the SDK alone: no tool, no inner request)',
      goal: { ofAnchor: 0, anchor: 'httpGetFeed' },
      requests: [mcpMessage({ method: 'ping' })],
    },
    {
      // The JSON-RPC envelope, the SDK's server and transport, and the injected request on top of
      // the operation itself: against the same operation over plain HTTP, in the same run.
      name: 'MCP tools/call createPost (limiter, distinct bots)',
      goal: { ofAnchor: 0.6, anchor: 'httpCreatePost' },
      requests: [
        mcpMessage({ method: 'tools/call' }, (r) =>
          withPostingKey({
            ...r,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'createPost', arguments: postBody() },
            }),
          }),
        ),
      ],
    },
    {
      // A tool call should cost little beyond the SDK's own floor: the call's envelope, its inner
      // request through the route (the page from the response cache) and the answer twice (text and
      // structuredContent), against a ping in the same run.
      name: 'MCP tools/call getFeed (sort=new, page 1)',
      goal: { ofAnchor: 0.6, anchor: 'mcpPing' },
      requests: [mcpRequest('getFeed', { sort: 'new' })],
    },
    {
      name: 'POST /api/bots/me/identity-tokens (limiter, distinct bots)',
      goal: { ofAnchor: 0.5, anchor: 'createPost' },
      requests: [
        {
          method: 'POST',
          path: '/api/bots/me/identity-tokens',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ audience: 'https://chess.example.com' }),
          setupRequest: withKey,
        },
      ],
    },
    {
      name: 'POST /api/identity/verify (100 tokens in turn)',
      goal: { ofAnchor: 0.5, anchor: 'createPost' },
      requests: [
        {
          method: 'POST',
          path: '/api/identity/verify',
          headers: { 'content-type': 'application/json' },
          setupRequest: (r) => ({
            ...r,
            body: JSON.stringify({
              token: identityTokens[n++ % identityTokens.length],
              audience: 'https://chess.example.com',
            }),
          }),
        },
      ],
    },
    {
      name: 'GET /.well-known/jwks.json (from memory)',
      goal: { ratio: 0.4 },
      requests: [{ method: 'GET', path: '/.well-known/jwks.json' }],
    },
  ];
  const selected = (name: string) => only === undefined || only.some((part) => name.includes(part));
  // Every run of each reference, in order, for the table: how far the machine's speed drifted.
  const referenceRuns = new Map<ReferenceName, Measured[]>();
  const kept = (reference: ReferenceName, measured: Measured) => {
    referenceRuns.set(reference, [...(referenceRuns.get(reference) ?? []), measured]);
    return measured;
  };
  const results: Measured[] = [];
  for (const scenario of scenarios.filter((s) => selected(s.name))) {
    const reference = referenceOf(scenario.goal);
    const result = await alternated(
      (run) => measure(scenario.on ?? (scenario.onAnchor ? anchor : server), scenario, run),
      async (run) => kept(reference, await references[reference](run)),
      scenario.slices,
    );
    results.push(result);
    console.log(`${result.name}: ${result.rps.toFixed(0)} req/s, ${result.ratio!.toFixed(3)}× ${reference}`);
  }

  // What every agent's context pays before it does anything: the tools/list answer, compact JSON.
  // Asked after the scenarios, not before: the first MCP request loads the SDK (and zod), which the
  // rows before the first MCP one must not carry in their peak RSS.
  const toolsListBytes = Buffer.byteLength(
    await (
      await fetch(`${server.base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    ).text(),
  );
  // Mixed: page 1 read at full load on a second instance while bots post on the first, for the
  // whole time (the posts' staleness needs it), between two runs of hello-world.
  let mixed = undefined as Awaited<ReturnType<typeof mixedLoad>> | undefined;
  if (selected('mixed')) {
    const before = kept('hello', await references.hello({ seconds, warmup: true }));
    const reader = await startProcess(serverArgs, serverEnv);
    mixed = await mixedLoad(reader, server, (i) => {
      const writer = keys.length - 1 - (i % keys.length);
      return {
        authorization: `Bearer ${keys[writer]}`,
        'x-forwarded-for': `10.${writer >> 16}.${(writer >> 8) & 255}.${writer & 255}`,
      };
    });
    await stopProcess(reader.child);
    const after = kept('hello', await references.hello({ seconds, warmup: false }));
    const reference = (before.rps + after.rps) / 2;
    results.push({ ...mixed.read, reference, ratio: mixed.read.rps / reference });
  }
  // Search, one request at a time: how long a person waits for an answer.
  let searchLatency: { medianMs: number; p99Ms: number } | undefined;
  if (selected('search')) {
    const waits: number[] = [];
    for (let i = 0; i < searchesInTurn; i++) {
      const started = performance.now();
      const response = await fetch(`${server.base}${searchPath()}`);
      if (response.status !== 200) throw new Error(`search answered ${response.status}`);
      await response.arrayBuffer();
      waits.push(performance.now() - started);
    }
    waits.sort((a, b) => a - b);
    searchLatency = { medianMs: waits[waits.length >> 1]!, p99Ms: waits[Math.floor(waits.length * 0.99)]! };
  }
  // The moderation queue, one page at a time as a moderator reads it, walked from its oldest.
  let queueLatency: { medianMs: number; p99Ms: number } | undefined;
  if (selected('listReports')) {
    const waits: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < queueReadsInTurn; i++) {
      const started = performance.now();
      const response = await fetch(
        `${server.base}/api/moderation/reports${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers: { cookie: moderatorCookie } },
      );
      if (response.status !== 200) throw new Error(`listReports answered ${response.status}`);
      const page = (await response.json()) as { next_cursor: string | null };
      waits.push(performance.now() - started);
      cursor = page.next_cursor;
    }
    waits.sort((a, b) => a - b);
    queueLatency = { medianMs: waits[waits.length >> 1]!, p99Ms: waits[Math.floor(waits.length * 0.99)]! };
  }
  // The hourly trust recomputation over every bot, as the job runs it, while bots post: how long
  // it takes, and what the posts it overlapped saw, against as long a run of posts just before.
  let trust: Awaited<ReturnType<typeof recomputeWhileWriting>> | undefined;
  if (selected('trust')) trust = await recomputeWhileWriting(url, server, postRequest(withPostingKey));
  for (const started of [server, withoutLoopBreaker, textChecksOn, textChecksOff, hello, anchor])
    await stopProcess(started.child);
  // The text checks alone on bench/labels.ts's adversarial texts of 64 KiB, in this process now idle:
  // the slowest text's median.
  const timeTextChecks = textChecksTimer(loadSpec());
  const slowestText = Object.entries(adversarialUnits(loadSpec()))
    .map(([name, unit]) => ({ name, ...timeTextChecks(unit, 64 * 1024) }))
    .sort((a, b) => b.median - a.median)[0]!;

  const startup = {
    postgres: await startupMs({ DATABASE_URL: url }),
    pglite: await (async () => {
      const dir = await mkdtemp(join(tmpdir(), 'bp-bench-pglite-'));
      try {
        await startupMs({ DATABASE_URL: '', PGLITE_DIR: dir }); // creates and migrates the data
        return await startupMs({ DATABASE_URL: '', PGLITE_DIR: dir });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    })(),
  };

  const referenceNames: Record<ReferenceName, string> = {
    hello: 'hello-world',
    feed: 'the feed anchor',
    createPost: 'the createPost anchor',
    vote: 'the vote anchor',
    httpCreatePost: 'createPost over HTTP (trust level 1)',
    httpGetFeed: 'the feed page 1 over HTTP',
    mcpPing: 'an MCP ping',
    httpCommentWithoutLoopBreaker: 'commentOnPost with the loop breaker off',
    httpLongPostWithoutTextChecks: 'the same createPost with the text checks off',
  };
  const ratioOf = (r: Measured) => r.ratio!;
  // A goal of 0 marks a ceiling shown for comparison: its ratio, no goal.
  const goalOf = (r: Measured) => r.goal.ratio ?? r.goal.ofAnchor ?? 0;
  const met = (r: Measured) =>
    goalOf(r) === 0 ? '' : ratioOf(r) >= goalOf(r) && r.errors === 0 ? 'yes' : 'NO';
  const goalText = (r: Measured) =>
    `${goalOf(r) === 0 ? 'none, a ceiling:' : `≥ ${goalOf(r)}×`} ${referenceNames[referenceOf(r.goal)]} (${r.reference!.toFixed(0)} req/s in its slices)`;
  // Our server's peak (the anchors and hello-world are other processes).
  const ours = results.filter((r) => !r.onAnchor);
  const maxRss = Math.max(...ours.map((r) => r.rssMb));
  // The peak before the first MCP row: what the server reached before the SDK was loaded.
  const firstMcp = ours.findIndex((r) => r.name.startsWith('MCP '));
  const rssBeforeMcp = firstMcp > 0 ? Math.max(...ours.slice(0, firstMcp).map((r) => r.rssMb)) : undefined;
  // Each reference once, its runs' mean and range: how far this machine's speed drifted in the run.
  const referenceRows = [...referenceRuns.values()].map((measured) => {
    const rates = measured.map((r) => r.rps);
    const mean = rates.reduce((sum, rate) => sum + rate, 0) / rates.length;
    const first = measured[0]!;
    return `| ${first.name}: ${rates.length} runs, ${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)} req/s | ${mean.toFixed(0)} | ${first.p50} | ${first.p99} | — | — | ${measured.reduce((sum, r) => sum + r.errors, 0)} | — | |`;
  });
  const rows = [
    ...referenceRows,
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.rssMb.toFixed(0)} | ${ratioOf(r).toFixed(3)} | ${r.errors} | ${goalText(r)} | ${met(r)} |`,
    ),
  ];
  if (mixed) {
    const { read } = mixed;
    // In the table's form: p50 and p99 are the staleness's median and maximum, errors the posts never seen.
    const { stalenessMs, maxStalenessMs, maxAnsweredMs, unseen } = mixed;
    const median = stalenessMs.toSorted((a, b) => a - b)[Math.floor(stalenessMs.length / 2)] ?? NaN;
    const staleMet = unseen === 0 && maxStalenessMs <= maxStaleMs;
    rows.splice(
      rows.findIndex((row) => row.startsWith(`| ${read.name} `)) + 1,
      0,
      `| mixed: staleness on the reading instance, ms from a 201 to the last read sent without it (${stalenessMs.length} posts; p50, max; the first read with it answered at most ${maxAnsweredMs.toFixed(0)} ms after the 201) | — | ${median.toFixed(0)} | ${maxStalenessMs.toFixed(0)} | — | — | ${unseen} | max ≤ ${maxStaleMs} ms | ${staleMet ? 'yes' : 'NO'} |`,
    );
  }
  if (searchLatency) {
    const { medianMs, p99Ms } = searchLatency;
    rows.splice(
      rows.findIndex((row) => row.startsWith('| GET /api/search')) + 1,
      0,
      `| search: ${searchesInTurn} requests one at a time (the titles in turn), ms (p50, p99) | — | ${medianMs.toFixed(1)} | ${p99Ms.toFixed(1)} | — | — | 0 | p50 ≤ ${searchMedianMs} ms | ${medianMs <= searchMedianMs ? 'yes' : 'NO'} |`,
    );
  }
  if (queueLatency) {
    const { medianMs, p99Ms } = queueLatency;
    rows.push(
      `| listReports: ${queueReadsInTurn} pages one at a time (${moderation.reports} open reports over ${moderation.reportedTargets} targets, walked from the oldest), ms (p50, p99) | — | ${medianMs.toFixed(1)} | ${p99Ms.toFixed(1)} | — | — | 0 | p50 ≤ ${queueMedianMs} ms | ${medianMs <= queueMedianMs ? 'yes' : 'NO'} |`,
    );
  }
  const indexed =
    /Bitmap Index Scan on post_search_document/.test(searchPlan) && !/Seq Scan/.test(searchPlan);
  const report = [
    '# Benchmark: our server against the framework ceiling',
    '',
    `${seeded.posts.toLocaleString('en')} posts, ${seeded.bots.toLocaleString('en')} bots, ${seeded.votes.toLocaleString('en')} votes, ${seeded.comments.toLocaleString('en')} comments on the Postgres server (seeded in ${seeded.seconds.toFixed(0)} s); ${moderation.removed.toLocaleString('en')} posts removed by moderators (every feed row reads around them), ${moderation.reports.toLocaleString('en')} open reports over ${moderation.reportedTargets.toLocaleString('en')} posts.`,
    `Each scenario: autocannon, ${connections} connections, ${seconds} s after a ${warmupSeconds} s warm-up, against a server in its own process on 127.0.0.1;`,
    `ratio = scenario requests/s ÷ its reference's (hello-world, or the raw-pg anchor of the same work): ${slices} slices of ${seconds / slices} s of each (8 for the text checks' row, whose slices hold a few hundred slow requests each), taken in turn (reference first and last), each slice divided by the reference's on either side, the median kept; req/s, p50 and p99 are the slices' medians. The mixed rows run ${seconds} s at once, between two runs of hello-world. RSS is the server's peak during the scenario.`,
    `Our server's statements: ${statements} (\`DATABASE_PREPARED_STATEMENTS\`; the anchors always prepare theirs).`,
    `Generated by \`${statements === 'named' ? 'DATABASE_PREPARED_STATEMENTS=named ' : ''}npm run bench\` on ${new Date().toISOString().slice(0, 10)}. Latencies in ms.`,
    '',
    '| scenario | req/s | p50 | p99 | RSS MB | ratio | errors | goal | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '| start-up to first 200 on /readyz | ms | goal | met |',
    '| --- | --- | --- | --- |',
    `| Postgres | ${startup.postgres} | ≤ 800 | ${startup.postgres <= 800 ? 'yes' : 'NO'} |`,
    `| PGlite, existing data | ${startup.pglite} | ≤ 1500 | ${startup.pglite <= 1500 ? 'yes' : 'NO'} |`,
    '',
    rssBeforeMcp === undefined
      ? `Server RSS under load: peak ${maxRss.toFixed(0)} MB (goal ≤ 160 MB: ${maxRss <= 160 ? 'yes' : 'NO'}).`
      : `Server RSS under load: peak ${rssBeforeMcp.toFixed(0)} MB before the first MCP row (goal ≤ 160 MB: ${rssBeforeMcp <= 160 ? 'yes' : 'NO'}); ` +
        `peak ${maxRss.toFixed(0)} MB with MCP used (goal ≤ 200 MB: ${maxRss <= 200 ? 'yes' : 'NO'}).`,
    '',
    `The text checks (hidden text, secrets, labels) on the slowest of bench/labels.ts's adversarial 64 KiB texts, "${slowestText.name}": ${slowestText.median.toFixed(1)} ms, the median of 15 runs (slowest ${slowestText.slowest.toFixed(1)}; goal ≤ 10 ms: ${slowestText.median <= 10 ? 'yes' : 'NO'}).`,
    '',
    `MCP \`tools/list\`: ${toolsListBytes.toLocaleString('en')} bytes, what every agent's context holds before its first call (goal < 40,000: ${toolsListBytes < 40_000 ? 'yes' : 'NO'}).`,
    '',
    ...(trust
      ? [
          `## The hourly trust recomputation over ${trust.bots.toLocaleString('en')} bots, while bots post`,
          '',
          `recomputeAllTrust(), as the job \`recompute-trust-levels\` runs it (batches of 1,000 bots, each one statement under the server's 5 s timeout): ${trust.seconds.toFixed(2)} s, ${trust.changed.toLocaleString('en')} levels changed (goal < ${trustRecomputeGoalSeconds} s: ${trust.seconds < trustRecomputeGoalSeconds ? 'yes' : 'NO'}).`,
          `The same walk with no other load, just before: ${trust.aloneSeconds.toFixed(2)} s.`,
          `Posts meanwhile (distinct bots, ${connections} connections): ${trust.during.rps.toFixed(0)} req/s, p99 ${trust.during.p99} ms, slowest ${trust.during.max} ms; just before, as long a run: ${trust.before.rps.toFixed(0)} req/s, p99 ${trust.before.p99} ms, slowest ${trust.before.max} ms; ${trust.errors} errors${trust.refusals ? ` (${trust.refusals})` : ''}.`,
          `No post blocked (none slower than 1 s, at least half the rate of the run before, on 2 cores shared with the recomputation): ${trust.during.max < 1000 && trust.during.rps >= trust.before.rps / 2 && trust.errors === 0 ? 'yes' : 'NO'}.`,
          '',
        ]
      : []),
    `## A community's hot page at depth ${communityDepth.toLocaleString('en')}: the plan feed_page() runs (an index walk of posts_community_hot: ${community.indexed ? 'yes' : 'NO'})`,
    '',
    `${communityPosts.toLocaleString('en')} of the posts are in one community, ${pins} of them pinned.`,
    '',
    '```',
    community.plan,
    '```',
    '',
    `## Search: the plan of \`${searched}\` (EXPLAIN ANALYZE of the handler's own query; an index, never a scan: ${indexed ? 'yes' : 'NO'})`,
    '',
    `A seeded word is in ${oneWordMatches.toLocaleString('en')} posts; both words of this query in the rows the plan shows.`,
    '',
    '```',
    searchPlan,
    '```',
    '',
  ].join('\n');
  if (only === undefined) await writeFile(new URL(`./results/${resultsFile}`, import.meta.url), report);
  console.log(report);
});

/**
 * A community holding `communityPosts` of the seeded posts, chosen at random (so its index, not the
 * main feed's, finds them), `pins` of them pinned; and the plan feed_page() runs for its hot page
 * at `communityDepth`, which must be cut straight from a walk of posts_community_hot.
 */
async function seedCommunity(db: Kysely<Database>, url: string) {
  const name = 'bench-community';
  const { rows } = await sql<{ id: string }>`
    insert into communities (name, title, description) values (${name}, 'The bench', 'A tenth of the feed.')
    returning id`.execute(db);
  const id = rows[0]!.id;
  await sql`update posts set community_id = ${id}
    where id in (select id from posts order by md5(id::text) limit ${communityPosts})`.execute(db);
  await sql`update posts set pinned_at = now()
    where id in (select id from posts where community_id = ${id} order by created_at limit ${pins})`.execute(
    db,
  );
  // Posts moved into it by hand, not posted: its count set as the triggers would have kept it.
  await sql`update communities set posts_count = ${communityPosts} where id = ${id}`.execute(db);
  await sql`analyze posts`.execute(db);
  const deep = (
    await sql<{ hot: number; id: string }>`select hot, id from posts
      where community_id = ${id} and pinned_at is null
      order by hot desc, id desc offset ${communityDepth - 1} limit 1`.execute(db)
  ).rows[0]!;
  const call = feedPageCall({ sort: 'hot', community: name, limit: 21, after: [deep.hot, deep.id] }).compile(
    db,
  );
  const plan = (await nestedPlans(url, call)).find((found) => / on posts /.test(found)) ?? '';
  // As for the main feed (bench/feed-depth.ts): the page cut (Limit) straight from the index walk.
  const indexed = /Limit\s+\(.*\n\s*->\s+Index Scan (Backward )?using posts_community_hot on posts /.test(
    plan,
  );
  return { name, plan, indexed };
}

/**
 * The mixed row: page 1 read at full load (autocannon, as every scenario) on `reader` while bots
 * post on `writer`, another instance on the same database, one post every `postEveryMs`. After each
 * 201 a probe reads the same page on `reader`, one read at a time, until it includes the post: its
 * staleness is the time from the 201 to the last read sent that did not include it (0 when the
 * first did): how long after the write a reader could still be shown the page without it. Reported
 * beside it: the time to the answer of the first read that did (a whole read's wait more).
 */
/**
 * recomputeAllTrust() over every bot (50,000), on its own connection as the periodic job runs it,
 * while autocannon posts through the server: the recomputation's seconds, and the posts' rate and
 * worst latency during it against a run of posts as long just before it. It holds row locks only
 * on bots whose level changes, each batch in its own short transaction, so no post waits on it.
 */
async function recomputeWhileWriting(url: string, server: ServerProcess, post: autocannon.Request) {
  // The server's own statement timeout (5 s): each batch is one statement, as in the job.
  const database = await openDatabase({
    databaseUrl: url,
    pgliteDir: 'memory://',
    databaseStatementTimeoutMs: 5000,
  });
  const { db } = database;
  try {
    const settings = loadConfig({});
    const bots = Number((await sql<{ n: string }>`select count(*) as n from bots`.execute(db)).rows[0]!.n);
    const load = (duration: number) =>
      autocannon({ url: server.base, connections, duration, requests: [post] });
    // A run of the recomputation's own length, measured first, is the baseline's length.
    const probe = performance.now();
    await recomputeAllTrust(db, settings, null);
    const probeSeconds = (performance.now() - probe) / 1000;
    const length = Math.max(3, Math.ceil(probeSeconds));
    const before = await load(length);
    // Every bot back to where it was, so the measured run changes as many levels as the probe did.
    await sql`update bots set trust_level = 2, established_at = now() - interval '31 days'
      where id in (select id from bots order by id offset ${levelOneWriters} limit ${writerBots - levelOneWriters})`.execute(
      db,
    );
    const during = load(length + 2);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const started = performance.now();
    const run = await recomputeAllTrust(db, settings, null);
    const recomputeSeconds = (performance.now() - started) / 1000;
    const writes = await during;
    return {
      bots,
      changed: run.changed,
      seconds: recomputeSeconds,
      aloneSeconds: probeSeconds,
      before: { rps: before.requests.average, p99: before.latency.p99, max: before.latency.max },
      during: { rps: writes.requests.average, p99: writes.latency.p99, max: writes.latency.max },
      errors: before.errors + before.non2xx + writes.errors + writes.non2xx,
      refusals: refusalsOf(before, writes),
    };
  } finally {
    await database.close();
  }
}

/** What the errors of some runs were: each status other than 2xx with its count, and connection errors. */
function refusalsOf(...results: autocannon.Result[]): string {
  const counts = new Map<string, number>();
  for (const result of results) {
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
      if (!status.startsWith('2')) counts.set(status, (counts.get(status) ?? 0) + (count ?? 0));
    if (result.errors > 0)
      counts.set('connection errors', (counts.get('connection errors') ?? 0) + result.errors);
  }
  return [...counts].map(([what, count]) => `${what} ×${count}`).join(', ');
}

async function mixedLoad(
  reader: ServerProcess,
  writer: ServerProcess,
  senderOf: (i: number) => Record<string, string>,
) {
  const path = '/api/feed?sort=new';
  const scenario: Scenario = {
    name: `mixed: GET ${path}, page 1, on a second instance while bots post on the first (one every ${postEveryMs} ms)`,
    goal: { ratio: 0.3 },
    requests: [{ method: 'GET', path }],
  };
  const reading = measure(reader, scenario);
  await new Promise((resolve) => setTimeout(resolve, warmupSeconds * 1000));
  const stalenessMs: number[] = [];
  const answeredMs: number[] = [];
  let unseen = 0;
  const probes: Array<Promise<void>> = [];
  const probe = async (id: string, acknowledged: number) => {
    let lastStaleSent = acknowledged;
    for (;;) {
      const sent = performance.now();
      const page = (await (await fetch(`${reader.base}${path}`)).json()) as { items: Array<{ id: string }> };
      const elapsed = performance.now() - acknowledged;
      if (page.items.some((item) => item.id === id)) {
        stalenessMs.push(lastStaleSent - acknowledged);
        answeredMs.push(elapsed);
        return;
      }
      if (elapsed > 10_000) return void unseen++;
      lastStaleSent = sent;
    }
  };
  // Stop posting early enough for the last probes to finish under the load.
  const until = performance.now() + (seconds - 2) * 1000;
  for (let i = 0; performance.now() < until; i++) {
    const response = await fetch(`${writer.base}/api/feed/posts`, {
      method: 'POST',
      headers: { ...senderOf(i), 'content-type': 'application/json' },
      body: JSON.stringify({
        category: 'results',
        title: 'Mixed',
        body: `A post while the feed is read (${i}).`,
      }),
    });
    const acknowledged = performance.now();
    const body = (await response.json()) as { id: string };
    if (response.status !== 201)
      throw new Error(`mixed: a post was refused: ${response.status} ${JSON.stringify(body)}`);
    probes.push(probe(body.id, acknowledged));
    await new Promise((resolve) => setTimeout(resolve, postEveryMs));
  }
  await Promise.all(probes);
  return {
    read: await reading,
    stalenessMs,
    maxStalenessMs: Math.max(...stalenessMs),
    maxAnsweredMs: Math.max(...answeredMs),
    unseen,
  };
}

/** How long a run lasts, and whether a warm-up comes first. */
interface Run {
  seconds: number;
  warmup: boolean;
}

async function measure(
  { child, base }: ServerProcess,
  scenario: Scenario,
  run: Run = { seconds, warmup: true },
): Promise<Measured> {
  if (run.warmup)
    await autocannon({ url: base, connections, duration: warmupSeconds, requests: scenario.requests });
  let peak = 0;
  const sampler = setInterval(() => void rssMb(child.pid!).then((mb) => (peak = Math.max(peak, mb))), 250);
  const result = await autocannon({
    url: base,
    connections,
    duration: run.seconds,
    requests: scenario.requests,
  });
  clearInterval(sampler);
  return {
    name: scenario.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rssMb: peak,
    errors: result.errors + result.non2xx,
    goal: scenario.goal,
    ...(scenario.onAnchor ? { onAnchor: true as const } : {}),
  };
}

/**
 * A scenario against its reference, in short slices taken in turn (reference, scenario, reference,
 * ..., reference), each warmed up first: each slice of the scenario is divided by the mean of the
 * reference's slices on either side, and the scenario keeps the median of those ratios, its
 * slices' median rate and latencies, their peak RSS and their errors.
 */
async function alternated(
  scenario: (run: Run) => Promise<Measured>,
  reference: (run: Run) => Promise<Measured>,
  taken = slices,
): Promise<Measured> {
  const run = { seconds: seconds / slices, warmup: false };
  const references = [await reference({ ...run, warmup: true })];
  const measured: Measured[] = [];
  for (let i = 0; i < taken; i++) {
    measured.push(await scenario({ ...run, warmup: i === 0 }));
    references.push(await reference(run));
  }
  const ratios = measured.map((m, i) => m.rps / ((references[i]!.rps + references[i + 1]!.rps) / 2));
  return {
    ...measured[0]!,
    rps: median(measured.map((m) => m.rps)),
    p50: median(measured.map((m) => m.p50)),
    p99: median(measured.map((m) => m.p99)),
    rssMb: Math.max(...measured.map((m) => m.rssMb)),
    errors: measured.reduce((sum, m) => sum + m.errors, 0),
    reference: median(references.map((r) => r.rps)),
    ratio: median(ratios),
  };
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** From spawning `node dist/server.bundle.js` (what `npm start` runs once built) to the first 200 on /readyz. */
async function startupMs(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const server = await startProcess(
    serverArgs,
    {
      NODE_ENV: 'production',
      SESSION_SECRET: benchSessionSecret,
      IDENTITY_KEY_SECRET: benchSessionSecret,
      DM_MASTER_KEY: benchSessionSecret,
      EMAIL_SIGNIN: 'off',
      LOG_LEVEL: 'warn',
      ...env,
    },
    '/readyz',
  );
  const elapsed = Math.round(performance.now() - started);
  await stopProcess(server.child);
  return elapsed;
}
