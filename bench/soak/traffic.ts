// The soak's traffic: a weighted mix of operations built from what the platform holds (planner),
// sent to either instance (send), and what came back, tallied per status, operation and
// rate-limit key (Stats).
import type { LimitedAction } from '../../src/config.js';
import { encodeCursor } from '../../src/platform/db/keyset.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { answersLike } from '../../test/helpers/assessments.js';
import { assertContract } from '../../test/helpers/contract.js';
import { hostileStrings } from '../../test/helpers/fuzz.js';
import type { ServerProcess } from '../server-process.js';
import { botTypes, categories, eagerCount, rng, seed } from './settings.js';

export interface Planned {
  operationId: OperationId;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The statuses a request built to be refused must get. */
  expect?: number[];
  /** The rate-limit key this request counts against, when it passes authentication. */
  limitKey?: { action: LimitedAction; subject: string };
  /** Who sent it, for what its answer teaches (whose post or comment it made). */
  by?: Writer;
}

export interface Writer {
  botId: string;
  /** Its key now: a rotation (rotateOwnKey) replaces it for every request planned after. */
  apiKey: string;
}

/** The traffic: a weighted mix of operations, each request built from what the platform holds. */
export function planner(writers: Writer[], postIds: string[], botIds: string[]) {
  const eager = writers.slice(0, eagerCount);
  // Bots that rotate their key or delete themselves are taken from the others, so that the eager
  // ones keep running into their limits.
  const calm = writers.slice(eagerCount);
  const cursors: Record<string, string[]> = { new: [], top: [], hot: [] };
  // An eager bot a quarter of the time, so that some bots live at their limits.
  const writer = () => (rng.chance(0.25) ? rng.pick(eager) : rng.pick(writers));
  const text = (plain: string) => (rng.chance(0.2) ? rng.pick(hostileStrings) + plain : plain);
  const json = (value: unknown) => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  const as = (bot: Writer) => ({ authorization: `Bearer ${bot.apiKey}` });
  const limited = (action: LimitedAction, bot: Writer) => ({ action, subject: bot.botId });
  const post = () => rng.pick(postIds);
  let registrations = 0;
  // What the soak's bots wrote, to delete it again; and the idempotent requests sent, to retry them.
  const written: {
    post: { id: string; by: Writer }[];
    comment: { id: string; postId: string; by: Writer }[];
  } = {
    post: [],
    comment: [],
  };
  const sentWithKey: Planned[] = [];
  const keyed = (planned: Planned): Planned => {
    const request = { ...planned, headers: { ...planned.headers, 'idempotency-key': crypto.randomUUID() } };
    if (sentWithKey.length < 500) sentWithKey.push(request);
    else sentWithKey[rng.int(0, sentWithKey.length - 1)] = request;
    return request;
  };
  const take = <T>(list: T[]): T | undefined =>
    list.length === 0 ? undefined : list.splice(rng.int(0, list.length - 1), 1)[0];

  const good: [number, () => Planned][] = [
    [
      18,
      () => {
        const sort = rng.pick(['new', 'top', 'hot'] as const);
        const query = new URLSearchParams({ sort });
        if (rng.chance(0.2)) query.set('category', rng.pick(categories));
        else if (rng.chance(0.4) && cursors[sort]!.length > 0) query.set('cursor', rng.pick(cursors[sort]!));
        if (rng.chance(0.3)) query.set('limit', String(rng.int(1, 100)));
        return { operationId: 'getFeed', method: 'GET', path: `/api/feed?${query.toString()}` };
      },
    ],
    [7, () => ({ operationId: 'getPost', method: 'GET', path: `/api/feed/posts/${post()}` })],
    [5, () => ({ operationId: 'listComments', method: 'GET', path: `/api/feed/posts/${post()}/comments` })],
    [7, () => ({ operationId: 'getBot', method: 'GET', path: `/api/bots/${rng.pick(botIds)}` })],
    [3, () => ({ operationId: 'listBots', method: 'GET', path: `/api/bots?type=${rng.pick(botTypes)}` })],
    [
      6,
      () =>
        rng.pick<Planned>([
          { operationId: 'getAnalyticsOverview', method: 'GET', path: '/api/analytics/overview' },
          { operationId: 'getAnalyticsTypes', method: 'GET', path: '/api/analytics/types' },
          { operationId: 'getAnalyticsModels', method: 'GET', path: '/api/analytics/models' },
          {
            operationId: 'getAnalyticsActivity',
            method: 'GET',
            path: `/api/analytics/activity?days=${rng.int(1, 365)}`,
          },
          { operationId: 'getAnalyticsDrift', method: 'GET', path: '/api/analytics/drift' },
        ]),
    ],
    [2, () => ({ operationId: 'getQuestions', method: 'GET', path: '/api/test/questions' })],
    [3, () => ({ operationId: 'getOwnBot', method: 'GET', path: '/api/bots/me', headers: as(writer()) })],
    [1, () => ({ operationId: 'getReadiness', method: 'GET', path: '/readyz' })],
    [7, () => newPost()],
    [7, () => newComment()],
    // With an Idempotency-Key of their own; then retried, as a bot on a flaky network would.
    [3, () => keyed(newPost())],
    [3, () => keyed(newComment())],
    [1, () => keyed(newAssessment())],
    [4, () => (sentWithKey.length > 0 ? rng.pick(sentWithKey) : keyed(newPost()))],
    [
      0.3,
      () => {
        const bot = rng.pick(calm);
        return keyed({
          operationId: 'rotateOwnKey',
          method: 'POST',
          path: '/api/bots/me/keys',
          headers: as(bot),
          limitKey: limited('key-rotations', bot),
          by: bot,
        });
      },
    ],
    [
      0.5,
      () => {
        const bot = writer();
        const body = json(
          rng.chance(0.5)
            ? { bio: text('Edited during the soak.') }
            : { model: 'soak-model-2', owner_x_handle: null },
        );
        return {
          operationId: 'updateOwnBot',
          method: 'PATCH',
          path: '/api/bots/me',
          ...body,
          headers: { ...body.headers, ...as(bot) },
          limitKey: limited('profile-updates', bot),
        };
      },
    ],
    [
      0.05,
      () => {
        // Taken from the writers first: nothing is planned for it after this.
        const bot = take(calm);
        if (!bot) return newPost();
        writers.splice(writers.indexOf(bot), 1);
        return { operationId: 'deleteOwnBot', method: 'DELETE', path: '/api/bots/me', headers: as(bot) };
      },
    ],
    [
      1.5,
      () => {
        const mine = take(written.post);
        if (!mine) return newPost();
        return {
          operationId: 'deletePost',
          method: 'DELETE',
          path: `/api/feed/posts/${mine.id}`,
          headers: as(mine.by),
        };
      },
    ],
    [
      1.5,
      () => {
        const mine = take(written.comment);
        if (!mine) return newComment();
        return {
          operationId: 'deleteComment',
          method: 'DELETE',
          path: `/api/feed/posts/${mine.postId}/comments/${mine.id}`,
          headers: as(mine.by),
        };
      },
    ],
    [
      14,
      () => {
        const bot = writer();
        const body = json({ direction: rng.pick(['up', 'down']) });
        return {
          operationId: 'voteOnPost',
          method: 'POST',
          path: `/api/feed/posts/${post()}/vote`,
          ...body,
          headers: { ...body.headers, ...as(bot) },
          limitKey: limited('votes', bot),
        };
      },
    ],
    [2, () => newAssessment()],
    [
      0.2,
      () => ({
        operationId: 'registerBot',
        method: 'POST',
        path: '/api/bots/register',
        ...json({ name: `soak-${seed}-${++registrations}`, model: 'soak-model' }),
        limitKey: { action: 'registrations', subject: '127.0.0.1' },
      }),
    ],
  ];

  function newPost(): Planned {
    const bot = writer();
    const body = json({
      category: rng.pick(categories),
      title: text('Soak'),
      body: text('A post written during the soak.'),
    });
    return {
      operationId: 'createPost',
      method: 'POST',
      path: '/api/feed/posts',
      ...body,
      headers: { ...body.headers, ...as(bot) },
      limitKey: limited('posts', bot),
      by: bot,
    };
  }

  function newAssessment(): Planned {
    const bot = writer();
    const body = json({ answers: answersLike(rng.pick(botTypes)) });
    return {
      operationId: 'submitAssessment',
      method: 'POST',
      path: '/api/test/submit',
      ...body,
      headers: { ...body.headers, ...as(bot) },
      limitKey: limited('assessments', bot),
    };
  }

  function newComment(): Planned {
    const bot = writer();
    const body = json({ body: text('A comment.') });
    return {
      operationId: 'commentOnPost',
      method: 'POST',
      path: `/api/feed/posts/${post()}/comment`,
      ...body,
      headers: { ...body.headers, ...as(bot) },
      limitKey: limited('comments', bot),
      by: bot,
    };
  }

  const bad: (() => Planned)[] = [
    () => {
      const bot = writer();
      return {
        operationId: 'createPost',
        method: 'POST',
        path: '/api/feed/posts',
        headers: { 'content-type': 'application/json', ...as(bot) },
        body: '{"title": "unfinished',
        expect: [400, 429],
        limitKey: limited('posts', bot),
      };
    },
    () => {
      const bot = writer();
      return {
        operationId: 'createPost',
        method: 'POST',
        path: '/api/feed/posts',
        headers: { 'content-type': 'text/plain', ...as(bot) },
        body: 'title',
        expect: [415, 429],
        limitKey: limited('posts', bot),
      };
    },
    () => {
      const bot = writer();
      const body = JSON.stringify({ category: 'results', title: 'Too big', body: 'x'.repeat(70_000) });
      return {
        operationId: 'commentOnPost',
        method: 'POST',
        path: `/api/feed/posts/${post()}/comment`,
        headers: { 'content-type': 'application/json', ...as(bot) },
        body,
        expect: [413, 429],
        limitKey: limited('comments', bot),
      };
    },
    () => ({
      operationId: 'createPost',
      method: 'POST',
      path: '/api/feed/posts',
      ...json({ category: 'results', title: 'x', body: 'y' }),
      headers: { 'content-type': 'application/json', authorization: 'Bearer bp_not_a_key' },
      expect: [401],
    }),
    () => {
      const bot = writer();
      return {
        operationId: 'voteOnPost',
        method: 'POST',
        path: `/api/feed/posts/${crypto.randomUUID()}/vote`,
        ...json({ direction: 'up' }),
        headers: { 'content-type': 'application/json', ...as(bot) },
        expect: [404, 429],
        limitKey: limited('votes', bot),
      };
    },
    () => {
      const bot = writer();
      return {
        operationId: 'submitAssessment',
        method: 'POST',
        path: '/api/test/submit',
        ...json({ answers: { q1: 11 } }),
        headers: { 'content-type': 'application/json', ...as(bot) },
        expect: [400, 429],
        limitKey: limited('assessments', bot),
      };
    },
    // An Idempotency-Key used before, with another body: refused, written and counted nowhere.
    () => {
      const earlier = sentWithKey.length > 0 ? rng.pick(sentWithKey) : keyed(newPost());
      return {
        ...earlier,
        body: earlier.body?.replace(/}$/, ', "body": "Another body"}'),
        expect: [201, 400, 404, 409, 422, 429],
      };
    },
    () => {
      const bot = writer();
      return {
        operationId: 'deletePost',
        method: 'DELETE',
        path: `/api/feed/posts/${post()}`,
        headers: as(bot),
        expect: [204, 403, 404],
      };
    },
    () => ({ operationId: 'getPost', method: 'GET', path: '/api/feed/posts/not-a-uuid', expect: [400, 404] }),
    () => ({
      operationId: 'getPost',
      method: 'GET',
      path: `/api/feed/posts/${crypto.randomUUID()}`,
      expect: [404],
    }),
    () => ({ operationId: 'getBot', method: 'GET', path: '/api/bots/%FF%FE', expect: [400, 404] }),
    () => ({
      operationId: 'getFeed',
      method: 'GET',
      path: `/api/feed?limit=${rng.pick(['abc', '0', '101', '-1', '99999999999999999999'])}`,
      expect: [400],
    }),
    () => ({
      operationId: 'getFeed',
      method: 'GET',
      path: '/api/feed?sort=new&cursor=bm90IGEgY3Vyc29y',
      expect: [400],
    }),
    () => ({
      operationId: 'getFeed',
      method: 'GET',
      path: `/api/feed?sort=top&cursor=${encodeCursor('feed:new', [new Date().toISOString(), crypto.randomUUID()])}`,
      expect: [400],
    }),
    () => ({
      operationId: 'registerBot',
      method: 'POST',
      path: '/api/bots/register',
      ...json({ name: '', model: 42 }),
      expect: [400, 429],
      limitKey: { action: 'registrations', subject: '127.0.0.1' },
    }),
  ];

  const totalWeight = good.reduce((sum, [weight]) => sum + weight, 0);
  return {
    next(): Planned {
      if (rng.chance(0.06)) return rng.pick(bad)();
      let pick = rng.next() * totalWeight;
      for (const [weight, build] of good) if ((pick -= weight) < 0) return build();
      return good[0]![1]();
    },
    /** What responses teach the traffic: new posts to read and vote on, cursors to page with. */
    learn(request: Planned, status: number, body: string, replayed: boolean) {
      if (request.operationId === 'createPost' && status === 201 && !replayed) {
        const { id } = JSON.parse(body) as { id: string };
        if (postIds.length < 20_000) postIds.push(id);
        if (request.by && written.post.length < 2_000) written.post.push({ id, by: request.by });
      }
      if (request.operationId === 'commentOnPost' && status === 201 && !replayed && request.by) {
        const { id, post_id } = JSON.parse(body) as { id: string; post_id: string };
        if (written.comment.length < 2_000) written.comment.push({ id, postId: post_id, by: request.by });
      }
      if (request.operationId === 'rotateOwnKey' && status === 201 && !replayed && request.by) {
        request.by.apiKey = (JSON.parse(body) as { api_key: string }).api_key;
      }
      if (request.operationId === 'deletePost' && status === 204) {
        const at = postIds.indexOf(request.path.split('/').pop()!);
        if (at >= 0) postIds[at] = postIds[postIds.length - 1]!;
        if (at >= 0) postIds.pop();
      }
      if (request.operationId === 'getFeed' && status === 200) {
        const cursor = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
        const query = new URL(request.path, 'http://x').searchParams;
        const sort = query.get('sort')!;
        if (cursor && !query.has('category')) {
          const list = cursors[sort]!;
          if (list.length < 200) list.push(cursor);
          else list[rng.int(0, list.length - 1)] = cursor;
        }
      }
    },
  };
}

export class Stats {
  total = 0;
  byStatus = new Map<number, number>();
  byOperation = new Map<string, number>();
  latencies: number[] = [];
  serverErrorCount = 0;
  serverErrors: string[] = [];
  networkErrorCount = 0;
  networkErrors: string[] = [];
  violationCount = 0;
  violations: string[] = [];
  unexpectedCount = 0;
  unexpected: string[] = [];
  /** Per rate-limit key: when each admitted request was answered, and how many were refused. */
  admitted = new Map<string, { action: LimitedAction; at: number[]; refused: number }>();
  /** Per Idempotency-Key sent: what each of its successful answers made (an id, or a new key). */
  madeByIdempotencyKey = new Map<string, Set<string>>();
  /** Keys a rotation or a deletion retired: a request planned with one before, sent after, is a 401. */
  retiredKeys = new Set<string>();
  /** 401s not otherwise expected, judged once the traffic stopped (the retirement may be learned after). */
  unauthorized: { line: string; authorization: string | undefined }[] = [];

  /** Counts as unexpected each 401 whose key was never retired. Call once the traffic stopped. */
  judgeUnauthorized() {
    for (const { line, authorization } of this.unauthorized)
      if (authorization === undefined || !this.retiredKeys.has(authorization))
        if (this.unexpectedCount++ < 5) this.unexpected.push(`${line} (its key was never retired)`);
  }

  record(request: Planned, status: number, body: string, headers: Headers, ms: number) {
    this.total++;
    this.latencies.push(ms);
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.byOperation.set(request.operationId, (this.byOperation.get(request.operationId) ?? 0) + 1);
    const line = `${request.method} ${request.path.slice(0, 120)} → ${status} ${body.slice(0, 300)}`;
    if (status >= 500 && this.serverErrorCount++ < 5) this.serverErrors.push(line);
    const authorization = request.headers?.authorization;
    if (
      (request.operationId === 'rotateOwnKey' && status === 201) ||
      (request.operationId === 'deleteOwnBot' && status === 204)
    )
      if (authorization !== undefined) this.retiredKeys.add(authorization);
    if (request.expect && !request.expect.includes(status)) {
      if (status === 401) this.unauthorized.push({ line, authorization });
      else if (this.unexpectedCount++ < 5)
        this.unexpected.push(`${line} (expected ${request.expect.join(' or ')})`);
    }
    try {
      assertContract(request.operationId, {
        statusCode: status,
        headers: Object.fromEntries(headers),
        body,
        json: () => JSON.parse(body) as unknown,
      });
    } catch (error) {
      if (this.violationCount++ < 5)
        this.violations.push(
          `${line}: ${error instanceof Error ? error.message.slice(0, 400) : String(error)}`,
        );
    }
    const idempotencyKey = request.headers?.['idempotency-key'];
    if (idempotencyKey !== undefined && status >= 200 && status < 300) {
      const answer = JSON.parse(body) as { id?: string; api_key?: string };
      const made = this.madeByIdempotencyKey.get(idempotencyKey) ?? new Set();
      made.add(answer.id ?? answer.api_key ?? body);
      this.madeByIdempotencyKey.set(idempotencyKey, made);
    }
    // Every request that passes authentication counts against its key, whatever its outcome, but
    // for what an Idempotency-Key answers without running it: a replay, a repeat racing the first,
    // a key reused for another request.
    if (request.limitKey && status !== 401 && !answeredByItsKey(status, body, headers)) {
      const key = `${request.limitKey.action}:${request.limitKey.subject}`;
      const entry = this.admitted.get(key) ?? { action: request.limitKey.action, at: [], refused: 0 };
      this.admitted.set(key, entry);
      if (status === 429) entry.refused++;
      else entry.at.push(Date.now());
    }
  }

  networkError(request: Planned, error: unknown) {
    if (this.networkErrorCount++ < 5)
      this.networkErrors.push(`${request.method} ${request.path}: ${String(error)}`);
  }
}

function answeredByItsKey(status: number, body: string, headers: Headers): boolean {
  if (headers.get('idempotent-replayed') === 'true') return true;
  return (status === 409 || status === 422) && /"code":"idempotency_key_(in_use|reused)"/.test(body);
}

export async function send(
  instance: ServerProcess,
  request: Planned,
  stats: Stats,
  plan: ReturnType<typeof planner>,
) {
  const started = performance.now();
  try {
    const response = await fetch(instance.base + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
    });
    const body = await response.text();
    stats.record(request, response.status, body, response.headers, performance.now() - started);
    plan.learn(request, response.status, body, response.headers.get('idempotent-replayed') === 'true');
  } catch (error) {
    stats.networkError(request, error);
  }
}
