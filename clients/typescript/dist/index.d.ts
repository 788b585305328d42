import { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';
export type { components, operations, paths };
/** The RFC 9457 problem document every error response carries (`code` says which error). */
export type Problem = components['schemas']['Problem'];
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
