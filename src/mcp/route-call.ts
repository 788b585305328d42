// A tool call's HTTP request, run through this app's own router: `app.routing`, the function its
// HTTP server hands every request to, so the route's hooks, limits, validation and error handler
// all run as for a bot over HTTP. Not `app.inject`: light-my-request builds a full
// http.ServerResponse over a null socket (headers rendered to text and parsed back, the payload
// copied twice), which cost a tool call more than the route itself (bench/results/agents-door.md).
// Here a request is the least Fastify reads of one, and a response keeps what the route sends.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export interface RouteRequest {
  method: string;
  /** Path and query string. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The caller's address, as a socket's would be. */
  remoteAddress: string;
  body?: string;
}

export interface RouteAnswer {
  statusCode: number;
  /** Lower-case names, as the route set them. */
  headers: Record<string, string | string[] | number | undefined>;
  /**
   * The body's bytes: the very Buffer the route sent when it sent one (a cached page's, the same
   * object for every hit), never a copy.
   */
  bytes: Buffer;
}

export type Routing = (request: IncomingMessage, response: ServerResponse) => void;

/** Runs `request` through `routing` and resolves with what the route answered. */
export function callRoute(routing: Routing, request: RouteRequest): Promise<RouteAnswer> {
  return new Promise((resolve, reject) => {
    const incoming = new RouteIncoming(request);
    const outgoing = new RouteOutgoing(resolve, reject);
    routing(incoming as unknown as IncomingMessage, outgoing as unknown as ServerResponse);
  });
}

/** The socket a route may read the caller's address from; it never closes. */
class RouteSocket extends EventEmitter {
  readonly encrypted = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
}

/** A request as Node's HTTP server would hand it over, its body (if any) readable once. */
class RouteIncoming extends Readable {
  readonly httpVersion = '1.1';
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly aborted = false;
  readonly method: string;
  url: string;
  readonly headers: Record<string, string>;
  readonly socket: RouteSocket;
  #body: Buffer | undefined;

  constructor({ method, url, headers, remoteAddress, body }: RouteRequest) {
    super();
    this.method = method;
    this.url = url;
    this.#body = body === undefined ? undefined : Buffer.from(body);
    this.headers = this.#body ? { ...headers, 'content-length': String(this.#body.length) } : headers;
    this.socket = new RouteSocket(remoteAddress);
  }

  get connection() {
    return this.socket;
  }

  override _read() {
    if (this.#body) this.push(this.#body);
    this.#body = undefined;
    this.push(null);
  }
}

/** A response that keeps its status, headers and body, and answers once the route ends it. */
class RouteOutgoing extends EventEmitter {
  statusCode = 200;
  statusMessage = '';
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  readonly writable = true;
  #headers: RouteAnswer['headers'] = {};
  #chunks: Array<Buffer | Uint8Array> = [];

  constructor(
    private readonly answered: (answer: RouteAnswer) => void,
    private readonly failed: (error: Error) => void,
  ) {
    super();
  }

  setHeader(name: string, value: string | string[] | number) {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }
  getHeader(name: string) {
    return this.#headers[name.toLowerCase()];
  }
  getHeaders() {
    return { ...this.#headers };
  }
  getHeaderNames() {
    return Object.keys(this.#headers);
  }
  hasHeader(name: string) {
    return this.#headers[name.toLowerCase()] !== undefined;
  }
  removeHeader(name: string) {
    delete this.#headers[name.toLowerCase()];
  }

  writeHead(statusCode: number, message?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders) {
    if (this.headersSent)
      throw Object.assign(new Error('Cannot write headers after they are sent'), {
        code: 'ERR_HTTP_HEADERS_SENT',
      });
    this.statusCode = statusCode;
    const fields = typeof message === 'object' ? message : headers;
    if (typeof message === 'string') this.statusMessage = message;
    for (const name in fields) this.setHeader(name, fields[name] as string);
    this.headersSent = true;
    return this;
  }

  write(chunk: string | Uint8Array, encoding?: BufferEncoding | (() => void), done?: () => void) {
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.#chunks.push(
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8')
        : chunk,
    );
    const callback = typeof encoding === 'function' ? encoding : done;
    if (callback) process.nextTick(callback);
    return true;
  }

  end(
    chunk?: string | Uint8Array | null | (() => void),
    encoding?: BufferEncoding | null,
    done?: () => void,
  ) {
    if (this.writableEnded) return this;
    if (typeof chunk === 'function') done = chunk;
    else if (chunk !== undefined && chunk !== null) this.write(chunk, encoding ?? undefined);
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableEnded = true;
    const [only, ...more] = this.#chunks;
    const bytes =
      more.length === 0 && only !== undefined
        ? Buffer.isBuffer(only)
          ? only
          : Buffer.from(only.buffer, only.byteOffset, only.byteLength)
        : Buffer.concat(this.#chunks);
    this.answered({ statusCode: this.statusCode, headers: this.#headers, bytes });
    // What a finished HTTP response tells its listeners (Fastify's onResponse hooks), after this turn.
    process.nextTick(() => {
      this.writableFinished = true;
      this.emit('finish');
      this.destroyed = true;
      this.emit('close');
      done?.();
    });
    return this;
  }

  destroy(error?: Error) {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (!this.writableEnded)
      this.failed(error ?? new Error('the route closed its response without answering'));
    process.nextTick(() => this.emit('close'));
    return this;
  }

  // What Fastify may call on a real response, meaningless here.
  setTimeout() {
    return this;
  }
  flushHeaders() {}
  cork() {}
  uncork() {}
}
