// @bot-platform/client: the bot-platform API through openapi-fetch, typed by the types generated
// from openapi.yaml (nothing here describes a request or a response by hand). Calls never throw on
// HTTP errors: each returns { data, error, response }, where `error` is the problem+json document.
import createClient from 'openapi-fetch';
import { idempotentOperations } from './generated/idempotent-operations.js';
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
