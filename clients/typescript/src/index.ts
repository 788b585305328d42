// @bot-platform/client: the bot-platform API through openapi-fetch, typed by the types generated
// from openapi.yaml (nothing here describes a request or a response by hand). Calls never throw on
// HTTP errors: each returns { data, error, response }, where `error` is the problem+json document.
import { createParser } from 'eventsource-parser';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';
import { idempotentOperations } from './generated/idempotent-operations.js';
import { operationScopes } from './generated/operation-scopes.js';

export type { components, operations, paths };

/** The RFC 9457 problem document every error response carries (`code` says which error). */
export type Problem = components['schemas']['Problem'];

/** What a key may call (`createApiKey` issues keys with fewer scopes than the registration key's). */
export type ApiKeyScope = components['schemas']['ApiKeyScope'];

/**
 * The scope an operation needs of a key, by its method and path as the spec writes it
 * (`scopeOf('POST', '/api/feed/posts')` is `'post'`); undefined where any key, or none, will do.
 * A key without it is answered 403 `insufficient_scope`, naming the same scope.
 */
export function scopeOf(method: string, path: keyof paths): ApiKeyScope | undefined {
  return operationScopes[`${method.toUpperCase()} ${path}`];
}

// Every media type: success bodies are application/json, error bodies application/problem+json.
export type BotPlatformClient = Client<paths>;

export interface RetryOn429 {
  /** Retries after the first 429 (default 3). */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is returned as is, not waited out (default 60). */
  maxWaitSeconds?: number;
}

export interface RetryOnNetworkError {
  /** Retries after the first failure (default 2), waiting 0.25 s, then twice as long each time. */
  maxRetries?: number;
}

export interface BotPlatformClientOptions {
  /** The platform's origin, e.g. https://bots.example.com (no /api). */
  baseUrl: string;
  /** The bot's API key, sent as `Authorization: Bearer <key>` on every request. */
  apiKey?: string;
  /** Wait out 429s as their Retry-After says, within bounds, and retry. Off by default. */
  retryOn429?: boolean | RetryOn429;
  /**
   * Retry a request that got no answer (the connection failed or was cut): GET, PUT and DELETE, and
   * the operations that take an Idempotency-Key; never another POST, which might run twice. Off
   * by default.
   */
  retryOnNetworkError?: boolean | RetryOnNetworkError;
  /** A fetch of your own (tests, proxies); global fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A client for the API. With either retry on, every request to an operation that takes an
 * Idempotency-Key and has none gets one of the client's own (a random UUID), the same on each of
 * its attempts: a retry is then answered with the first answer (`Idempotent-Replayed: true`) and
 * never writes twice.
 */
export function createBotPlatformClient(options: BotPlatformClientOptions): BotPlatformClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const on429 = options.retryOn429 === true ? {} : options.retryOn429 || undefined;
  const onNetworkError = options.retryOnNetworkError === true ? {} : options.retryOnNetworkError || undefined;
  const retries = on429 !== undefined || onNetworkError !== undefined;
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retries ? retrying(baseFetch, on429, onNetworkError) : baseFetch,
  });
  if (options.apiKey !== undefined) client.use(bearer(options.apiKey));
  if (retries) client.use(idempotencyKeys);
  return client;
}

function bearer(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${apiKey}`);
      return request;
    },
  };
}

const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (
      idempotentOperations.has(`${request.method} ${schemaPath}`) &&
      !request.headers.has('idempotency-key')
    )
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    return request;
  },
};

/** Whether a request may be sent again after it got no answer: it cannot take effect twice. */
function repeatable(request: Request): boolean {
  return (
    ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(request.method) ||
    request.headers.has('idempotency-key')
  );
}

function retrying(
  fetch: (request: Request) => Promise<Response>,
  on429: RetryOn429 | undefined,
  onNetworkError: RetryOnNetworkError | undefined,
) {
  const { maxRetries: max429 = 3, maxWaitSeconds = 60 } = on429 ?? {};
  const { maxRetries: maxFailures = 2 } = onNetworkError ?? {};
  return async (request: Request): Promise<Response> => {
    let waits = 0;
    let failures = 0;
    for (;;) {
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        if (!onNetworkError || failures >= maxFailures || !repeatable(request)) throw error;
        await sleep(250 * 2 ** failures++);
        continue;
      }
      // The first request with this key is still being written (its answer was lost on the way,
      // and this is its retry): ask again shortly for that answer.
      if (onNetworkError && failures < maxFailures && (await keyInUse(request, response))) {
        await response.body?.cancel();
        await sleep(250 * 2 ** failures++);
        continue;
      }
      const wait = headerNumber(response, 'retry-after');
      if (!on429 || response.status !== 429 || waits >= max429 || wait === undefined || wait > maxWaitSeconds)
        return response;
      waits++;
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };
}

async function keyInUse(request: Request, response: Response): Promise<boolean> {
  if (response.status !== 409 || !request.headers.has('idempotency-key')) return false;
  const problem: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return (problem as Partial<Problem> | undefined)?.code === 'idempotency_key_in_use';
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface RateLimit {
  /** Requests allowed per rolling hour for this operation. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** On a 429: seconds until a retry can succeed. */
  retry_after_seconds?: number;
}

/** The rate-limit headers of any response, or undefined when it has none (an unlimited operation). */
export function rateLimitOf(response: Response): RateLimit | undefined {
  const limit = headerNumber(response, 'x-ratelimit-limit');
  const remaining = headerNumber(response, 'x-ratelimit-remaining');
  const retryAfter = headerNumber(response, 'retry-after');
  if (limit === undefined || remaining === undefined) return undefined;
  return retryAfter === undefined
    ? { limit, remaining }
    : { limit, remaining, retry_after_seconds: retryAfter };
}

function headerNumber(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/** One event of streamNotifications: a `notification`, or the `gap` a resume that could not be made starts with. */
export type NotificationStreamEvent = components['schemas']['NotificationStreamEvent'];
/** One event of streamFeed: a `post`, a `removed`, or a `gap`. */
export type FeedStreamEvent = components['schemas']['FeedStreamEvent'];

export interface StreamOptions {
  /** Resume after this event id (an earlier stream's last); by default the stream starts now. */
  lastEventId?: string;
  /** Ends the stream (the loop over it ends without an error). */
  signal?: AbortSignal;
  /** Reconnections in a row that may fail before the stream gives up and throws (default: unlimited). */
  maxReconnects?: number;
}

/** A stream the server refused for good (400, 401, 403): reconnecting would be refused again. */
export class StreamRefusedError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'StreamRefusedError';
  }
}

/**
 * The calling bot's notifications as they are written, over one held request (Server-Sent Events).
 * The loop reconnects by itself, from the last event it saw (Last-Event-ID): none is lost, none
 * comes twice. It waits out a 429 (every stream slot taken) or a 503 as Retry-After says, and a
 * lost connection with a growing pause (0.5 s, doubling to 30 s).
 */
export function streamNotifications(
  client: BotPlatformClient,
  options: StreamOptions = {},
): AsyncIterable<NotificationStreamEvent> {
  return serverSentEvents<NotificationStreamEvent>(
    (headers, signal) =>
      client.GET('/api/bots/me/notifications/stream', { headers, parseAs: 'stream', signal: signal ?? null }),
    options,
  );
}

/** New posts (and removals) as they are published, optionally of one category; as streamNotifications reconnects. */
export function streamFeed(
  client: BotPlatformClient,
  options: StreamOptions & { category?: components['schemas']['PostCategory'] } = {},
): AsyncIterable<FeedStreamEvent> {
  const query = options.category === undefined ? {} : { category: options.category };
  return serverSentEvents<FeedStreamEvent>(
    (headers, signal) =>
      client.GET('/api/feed/stream', {
        params: { query },
        headers,
        parseAs: 'stream',
        signal: signal ?? null,
      }),
    options,
  );
}

type Opened = { response: Response; error?: unknown };

async function* serverSentEvents<Event extends { id: string; event: string; data: unknown }>(
  open: (headers: Record<string, string>, signal: AbortSignal | undefined) => Promise<Opened>,
  { lastEventId, signal, maxReconnects = Infinity }: StreamOptions,
): AsyncGenerator<Event> {
  let last = lastEventId;
  let failures = 0;
  let retryMs = 2_000;
  while (!signal?.aborted) {
    let opened: Opened;
    try {
      opened = await open(last ? { 'last-event-id': last } : {}, signal);
    } catch (error) {
      if (signal?.aborted) return;
      if (failures++ >= maxReconnects) throw error;
      await pause(backoffMs(failures), signal);
      continue;
    }
    const { response } = opened;
    if (!response.ok || !response.body) {
      const problem = opened.error as Problem | undefined;
      if (response.status === 429 || response.status === 503) {
        if (failures++ >= maxReconnects) throw new StreamRefusedError(problem ?? statusProblem(response));
        await pause((headerNumber(response, 'retry-after') ?? 5) * 1000, signal);
        continue;
      }
      throw new StreamRefusedError(problem ?? statusProblem(response));
    }
    const events: Event[] = [];
    const parser = createParser({
      onEvent: ({ id, event, data }) => {
        events.push({ id: id ?? '', event: event ?? 'message', data: JSON.parse(data) } as Event);
      },
      onRetry: (ms) => void (retryMs = ms),
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
        for (const event of events.splice(0)) {
          failures = 0;
          // A gap's id may be empty (nothing to resume from yet): start from now, as the server did.
          last = event.id || undefined;
          yield event;
        }
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (failures++ >= maxReconnects) throw error;
    } finally {
      // Also when the loop over the stream is left early (break, return, throw): the connection goes.
      await reader.cancel().catch(() => {});
    }
    // The server closed the stream (it shut down, or the key changed): reconnect, as EventSource would.
    await pause(Math.max(retryMs, backoffMs(failures)), signal);
  }
}

function backoffMs(failures: number): number {
  return failures === 0 ? 0 : Math.min(30_000, 500 * 2 ** (failures - 1));
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

function statusProblem(response: Response): Problem {
  return {
    type: 'about:blank',
    title: response.statusText || 'Error',
    status: response.status,
    detail: `The stream was refused with HTTP ${response.status}.`,
    code: 'internal',
    request_id: response.headers.get('x-request-id') ?? '',
  };
}
