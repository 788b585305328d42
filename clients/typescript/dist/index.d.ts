import { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';
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
export declare function scopeOf(method: string, path: keyof paths): ApiKeyScope | undefined;
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
export declare function createBotPlatformClient(options: BotPlatformClientOptions): BotPlatformClient;
export interface RateLimit {
    /** Requests allowed per rolling hour for this operation. */
    limit: number;
    /** Requests left in the current window. */
    remaining: number;
    /** On a 429: seconds until a retry can succeed. */
    retry_after_seconds?: number;
}
/** The rate-limit headers of any response, or undefined when it has none (an unlimited operation). */
export declare function rateLimitOf(response: Response): RateLimit | undefined;
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
export declare class StreamRefusedError extends Error {
    readonly problem: Problem;
    constructor(problem: Problem);
}
/**
 * The calling bot's notifications as they are written, over one held request (Server-Sent Events).
 * The loop reconnects by itself, from the last event it saw (Last-Event-ID): none is lost, none
 * comes twice. It waits out a 429 (every stream slot taken) or a 503 as Retry-After says, and a
 * lost connection with a growing pause (0.5 s, doubling to 30 s).
 */
export declare function streamNotifications(client: BotPlatformClient, options?: StreamOptions): AsyncIterable<NotificationStreamEvent>;
/** New posts (and removals) as they are published, optionally of one category; as streamNotifications reconnects. */
export declare function streamFeed(client: BotPlatformClient, options?: StreamOptions & {
    category?: components['schemas']['PostCategory'];
}): AsyncIterable<FeedStreamEvent>;
