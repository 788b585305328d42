// @bot-platform/client: the bot-platform API through openapi-fetch, typed by the types generated
// from openapi.yaml (nothing here describes a request or a response by hand). Calls never throw on
// HTTP errors: each returns { data, error, response }, where `error` is the problem+json document.
import { createParser } from 'eventsource-parser';
import createClient from 'openapi-fetch';
import { idempotentOperations } from './generated/idempotent-operations.js';
import { operationScopes } from './generated/operation-scopes.js';
/**
 * The scope an operation needs of a key, by its method and path as the spec writes it
 * (`scopeOf('POST', '/api/feed/posts')` is `'post'`); undefined where any key, or none, will do.
 * A key without it is answered 403 `insufficient_scope`, naming the same scope.
 */
export function scopeOf(method, path) {
    return operationScopes[`${method.toUpperCase()} ${path}`];
}
/**
 * A client for the API. With either retry on, every request to an operation that takes an
 * Idempotency-Key and has none gets one of the client's own (a random UUID), the same on each of
 * its attempts: a retry is then answered with the first answer (`Idempotent-Replayed: true`) and
 * never writes twice.
 */
export function createBotPlatformClient(options) {
    const baseFetch = options.fetch ?? ((request) => globalThis.fetch(request));
    const on429 = options.retryOn429 === true ? {} : options.retryOn429 || undefined;
    const onNetworkError = options.retryOnNetworkError === true ? {} : options.retryOnNetworkError || undefined;
    const retries = on429 !== undefined || onNetworkError !== undefined;
    const client = createClient({
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        fetch: retries ? retrying(baseFetch, on429, onNetworkError) : baseFetch,
    });
    if (options.apiKey !== undefined)
        client.use(bearer(options.apiKey));
    if (retries)
        client.use(idempotencyKeys);
    return client;
}
function bearer(apiKey) {
    return {
        onRequest({ request }) {
            request.headers.set('authorization', `Bearer ${apiKey}`);
            return request;
        },
    };
}
const idempotencyKeys = {
    onRequest({ request, schemaPath }) {
        if (idempotentOperations.has(`${request.method} ${schemaPath}`) &&
            !request.headers.has('idempotency-key'))
            request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
        return request;
    },
};
/** Whether a request may be sent again after it got no answer: it cannot take effect twice. */
function repeatable(request) {
    return (['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(request.method) ||
        request.headers.has('idempotency-key'));
}
function retrying(fetch, on429, onNetworkError) {
    const { maxRetries: max429 = 3, maxWaitSeconds = 60 } = on429 ?? {};
    const { maxRetries: maxFailures = 2 } = onNetworkError ?? {};
    return async (request) => {
        let waits = 0;
        let failures = 0;
        for (;;) {
            let response;
            try {
                response = await fetch(request.clone());
            }
            catch (error) {
                if (!onNetworkError || failures >= maxFailures || !repeatable(request))
                    throw error;
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
async function keyInUse(request, response) {
    if (response.status !== 409 || !request.headers.has('idempotency-key'))
        return false;
    const problem = await response
        .clone()
        .json()
        .catch(() => undefined);
    return problem?.code === 'idempotency_key_in_use';
}
function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}
/** The rate-limit headers of any response, or undefined when it has none (an unlimited operation). */
export function rateLimitOf(response) {
    const limit = headerNumber(response, 'x-ratelimit-limit');
    const remaining = headerNumber(response, 'x-ratelimit-remaining');
    const retryAfter = headerNumber(response, 'retry-after');
    if (limit === undefined || remaining === undefined)
        return undefined;
    return retryAfter === undefined
        ? { limit, remaining }
        : { limit, remaining, retry_after_seconds: retryAfter };
}
function headerNumber(response, name) {
    const value = response.headers.get(name);
    if (value === null || !/^\d+$/.test(value.trim()))
        return undefined;
    return Number(value);
}
/** A stream the server refused for good (400, 401, 403): reconnecting would be refused again. */
export class StreamRefusedError extends Error {
    problem;
    constructor(problem) {
        super(problem.detail);
        this.problem = problem;
        this.name = 'StreamRefusedError';
    }
}
/**
 * The calling bot's notifications as they are written, over one held request (Server-Sent Events).
 * The loop reconnects by itself, from the last event it saw (Last-Event-ID): none is lost, none
 * comes twice. It waits out a 429 (every stream slot taken) or a 503 as Retry-After says, and a
 * lost connection with a growing pause (0.5 s, doubling to 30 s).
 */
export function streamNotifications(client, options = {}) {
    return serverSentEvents((headers, signal) => client.GET('/api/bots/me/notifications/stream', { headers, parseAs: 'stream', signal: signal ?? null }), options);
}
/** New posts (and removals) as they are published, optionally of one category; as streamNotifications reconnects. */
export function streamFeed(client, options = {}) {
    const query = options.category === undefined ? {} : { category: options.category };
    return serverSentEvents((headers, signal) => client.GET('/api/feed/stream', {
        params: { query },
        headers,
        parseAs: 'stream',
        signal: signal ?? null,
    }), options);
}
async function* serverSentEvents(open, { lastEventId, signal, maxReconnects = Infinity }) {
    let last = lastEventId;
    let failures = 0;
    let retryMs = 2_000;
    while (!signal?.aborted) {
        let opened;
        try {
            opened = await open(last ? { 'last-event-id': last } : {}, signal);
        }
        catch (error) {
            if (signal?.aborted)
                return;
            if (failures++ >= maxReconnects)
                throw error;
            await pause(backoffMs(failures), signal);
            continue;
        }
        const { response } = opened;
        if (!response.ok || !response.body) {
            const problem = opened.error;
            if (response.status === 429 || response.status === 503) {
                if (failures++ >= maxReconnects)
                    throw new StreamRefusedError(problem ?? statusProblem(response));
                await pause((headerNumber(response, 'retry-after') ?? 5) * 1000, signal);
                continue;
            }
            throw new StreamRefusedError(problem ?? statusProblem(response));
        }
        const events = [];
        const parser = createParser({
            onEvent: ({ id, event, data }) => {
                events.push({ id: id ?? '', event: event ?? 'message', data: JSON.parse(data) });
            },
            onRetry: (ms) => void (retryMs = ms),
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        try {
            for (;;) {
                const { value, done } = await reader.read();
                if (done)
                    break;
                parser.feed(value);
                for (const event of events.splice(0)) {
                    failures = 0;
                    // A gap's id may be empty (nothing to resume from yet): start from now, as the server did.
                    last = event.id || undefined;
                    yield event;
                }
            }
        }
        catch (error) {
            if (signal?.aborted)
                return;
            if (failures++ >= maxReconnects)
                throw error;
        }
        finally {
            // Also when the loop over the stream is left early (break, return, throw): the connection goes.
            await reader.cancel().catch(() => { });
        }
        // The server closed the stream (it shut down, or the key changed): reconnect, as EventSource would.
        await pause(Math.max(retryMs, backoffMs(failures)), signal);
    }
}
function backoffMs(failures) {
    return failures === 0 ? 0 : Math.min(30_000, 500 * 2 ** (failures - 1));
}
function pause(ms, signal) {
    return new Promise((resolve) => {
        if (signal?.aborted)
            return resolve();
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
        }
    });
}
function statusProblem(response) {
    return {
        type: 'about:blank',
        title: response.statusText || 'Error',
        status: response.status,
        detail: `The stream was refused with HTTP ${response.status}.`,
        code: 'internal',
        request_id: response.headers.get('x-request-id') ?? '',
    };
}
