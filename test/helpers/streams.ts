// Event streams read as a client reads them: over real HTTP, parsed by eventsource-parser (what the
// typed client uses). `next()` waits for the next event (failing after a deadline), `ended` settles
// when the server closes the stream, `comments` collects the comment lines.
import assert from 'node:assert/strict';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { listOperations, loadSpec, type Operation } from '../../src/platform/spec/openapi.js';
import { assertContract, assertStreamEvent, type ContractResponse } from './contract.js';

export interface StreamEventRead {
  id: string;
  event: string;
  data: unknown;
}

export interface OpenedStream {
  response: Response;
  /** The next event, within `timeoutMs` (default 5 s). */
  next(timeoutMs?: number): Promise<StreamEventRead>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  comments: string[];
  /** The `retry:` the stream asked for. */
  retry: number | undefined;
  close(): void;
}

/**
 * Opens `path` on `base` with `headers`. A 200 is checked against the spec (and each event, as it
 * is read); any other status is returned with its body read, for the caller to check.
 */
export async function openStream(
  operationId: OperationId,
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<OpenedStream> {
  const abort = new AbortController();
  const response = await fetch(`${base}${path}`, { headers, signal: abort.signal });
  const queue: StreamEventRead[] = [];
  const waiting: Array<(event: StreamEventRead) => void> = [];
  const opened: OpenedStream = {
    response,
    comments: [],
    retry: undefined,
    ended: Promise.resolve(),
    close: () => abort.abort(),
    next(timeoutMs = 5_000) {
      const ready = queue.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((event) => {
          clearTimeout(timer);
          resolve(event);
        });
      });
    },
  };
  if (response.status !== 200 || !response.body) return opened;
  assertContract(operationId, {
    statusCode: 200,
    headers: Object.fromEntries(response.headers),
    body: '',
    json: () => undefined,
  });
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      const event = {
        id: message.id ?? '',
        event: message.event ?? 'message',
        data: JSON.parse(message.data),
      };
      assertStreamEvent(operationId, event);
      const waiter = waiting.shift();
      if (waiter) waiter(event);
      else queue.push(event);
    },
    onComment: (comment) => void opened.comments.push(comment.trim()),
    onRetry: (ms) => void (opened.retry = ms),
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  opened.ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.feed(value);
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return opened;
}

/** Resolves once `check` holds, polling; fails after `timeoutMs`. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5_000,
  what = 'the condition',
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves when `promise` does, or fails after `timeoutMs`. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const streamPaths = new Set(
  listOperations(loadSpec())
    .filter((op) => isEventStream(op))
    .map((op) => `${op.method.toUpperCase()} ${op.path}`),
);

/** Whether an operation answers with a stream (`text/event-stream`): app.inject would wait for its end forever. */
export function isEventStream(op: Operation): boolean {
  const ok = op.operation.responses['200'] as { content?: Record<string, unknown> } | undefined;
  return ok?.content?.['text/event-stream'] !== undefined;
}

/**
 * app.inject, except that a request to a stream goes over HTTP and is closed as soon as its head
 * has come (an error's whole body is read): for the tests that try every operation.
 */
export async function injectOrOpen(
  app: FastifyInstance,
  options: InjectOptions & { url: string },
): Promise<SentResponse> {
  const { url } = options;
  if (!streamPaths.has(`${options.method ?? 'GET'} ${url.split('?')[0]}`)) return app.inject(options);
  const address = app.server.address();
  const base =
    address && typeof address === 'object'
      ? `http://127.0.0.1:${address.port}`
      : await app.listen({ host: '127.0.0.1', port: 0 });
  const query = new URLSearchParams(options.query as Record<string, string> | undefined).toString();
  const abort = new AbortController();
  const response = await fetch(`${base}${url}${query ? (url.includes('?') ? '&' : '?') + query : ''}`, {
    headers: options.headers as Record<string, string>,
    signal: abort.signal,
  });
  const body = response.status === 200 ? '' : await response.text();
  abort.abort();
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body,
    json: <T = unknown>() => JSON.parse(body) as T,
  };
}

/** What injectOrOpen answers: an inject's response, or a stream's head. */
export interface SentResponse extends ContractResponse {
  json<T = unknown>(): T;
}
