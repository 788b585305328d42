// @bot-platform/client: the bot-platform API through openapi-fetch, typed by the types generated
// from openapi.yaml (nothing here describes a request or a response by hand). Calls never throw on
// HTTP errors: each returns { data, error, response }, where `error` is the problem+json document.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };

/** The RFC 9457 problem document every error response carries (`code` says which error). */
export type Problem = components['schemas']['Problem'];

// Every media type: success bodies are application/json, error bodies application/problem+json.
export type BotPlatformClient = Client<paths>;

export interface RetryOn429 {
  /** Retries after the first 429 (default 3). */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is returned as is, not waited out (default 60). */
  maxWaitSeconds?: number;
}

export interface BotPlatformClientOptions {
  /** The platform's origin, e.g. https://bots.example.com (no /api). */
  baseUrl: string;
  /** The bot's API key, sent as `Authorization: Bearer <key>` on every request. */
  apiKey?: string;
  /** Wait out 429s as their Retry-After says, within bounds, and retry. Off by default. */
  retryOn429?: boolean | RetryOn429;
  /** A fetch of your own (tests, proxies); global fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createBotPlatformClient(options: BotPlatformClientOptions): BotPlatformClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.retryOn429
      ? retrying(baseFetch, options.retryOn429 === true ? {} : options.retryOn429)
      : baseFetch,
  });
  if (options.apiKey !== undefined) client.use(bearer(options.apiKey));
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

function retrying(
  fetch: (request: Request) => Promise<Response>,
  { maxRetries = 3, maxWaitSeconds = 60 }: RetryOn429,
) {
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(request.clone());
      const wait = headerNumber(response, 'retry-after');
      if (response.status !== 429 || attempt >= maxRetries || wait === undefined || wait > maxWaitSeconds)
        return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  };
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
