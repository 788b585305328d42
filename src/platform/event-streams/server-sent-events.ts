// One Server-Sent Events response (https://html.spec.whatwg.org/multipage/server-sent-events.html)
// on a reply taken over from Fastify: the headers the request's hooks set so far (request id,
// security headers, CORS, Cache-Control) plus the stream's own, then events as they come. The
// format is the standard's: `id:`, `event:`, one `data:` line (JSON has no raw newline), a blank
// line; a comment line keeps proxies from closing an idle stream. Until it is opened, the reply is
// Fastify's: a stream refused before that answers with a problem like any request.
import type { FastifyReply } from 'fastify';

export interface StreamEvent {
  id: string;
  event: string;
  data: unknown;
}

/** Milliseconds an `EventSource` waits before reconnecting (its `retry:` field). */
export const reconnectDelayMs = 2_000;

/**
 * A client that reads slower than events come: past this much unsent, its connection is cut (and
 * the client resumes with Last-Event-ID), rather than the server holding its backlog in memory.
 */
const maxBufferedBytes = 1024 * 1024;
/** An ended stream whose client does not take the end is cut after this long, so shutdown never waits on it. */
const endGraceMs = 1_000;

export class ServerSentEvents {
  #opened = false;
  #ended = false;

  constructor(private readonly reply: FastifyReply) {}

  /** Takes the reply over and sends the status line and headers at once. */
  open(): void {
    const { reply } = this;
    reply.hijack();
    this.#opened = true;
    const headers = {
      ...reply.getHeaders(),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': reply.getHeader('cache-control') ?? 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    };
    reply.raw.writeHead(200, headers as Record<string, string>);
    reply.raw.write(`retry: ${reconnectDelayMs}\n\n`);
  }

  get ended(): boolean {
    return this.#ended || this.reply.raw.destroyed;
  }

  send({ id, event, data }: StreamEvent): void {
    this.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  /** Ends the stream (a reply not yet opened is left to Fastify, to answer as it will). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#opened) return;
    const raw = this.reply.raw;
    raw.end();
    setTimeout(() => raw.destroy(), endGraceMs).unref();
  }

  private write(chunk: string): void {
    if (this.ended) return;
    const raw = this.reply.raw;
    raw.write(chunk);
    if (raw.writableLength > maxBufferedBytes) {
      this.#ended = true;
      raw.destroy();
    }
  }
}
