// The Fastify server's own options: the logger (credentials and one-time secrets never logged),
// request ids (a caller's kept only when it matches the spec's pattern), the slow-client timeouts,
// and the errors before routing, which take the one problem path: those Node's HTTP parser finds
// before Fastify sees a request (headers over 16 KiB, a request that timed out, bytes that are not
// HTTP) are problem documents too (clientErrorHandler).
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { LogController, type FastifyHttpOptions, type FastifyServerOptions } from 'fastify';
import type { Config } from '../../config.js';
import { headerPattern, type OpenApiDocument } from '../spec/openapi.js';
import { ProblemError } from '../spec/problems.js';
import { sendProblem } from './errors.js';

const bodyLimit = 64 * 1024;

const secretParameters = /([?&](?:token|code|state)=)[^&#]*/g;

function redactSecrets(url: string): string {
  return url.replace(secretParameters, '$1[redacted]');
}

/**
 * A request's id: a caller's x-request-id only when it matches the pattern openapi.yaml documents
 * for it (short and plain: harmless in headers and logs); otherwise one we make.
 */
export function requestIds(spec: OpenApiDocument): (headers: IncomingHttpHeaders) => string {
  const incomingRequestId = headerPattern(spec, 'X-Request-Id');
  return (headers) => {
    const incoming = headers['x-request-id'];
    return typeof incoming === 'string' && incomingRequestId.test(incoming) ? incoming : randomUUID();
  };
}

function logger(
  config: Config,
  logStream: NodeJS.WritableStream | undefined,
): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    // Credentials never reach a log line, whichever object carries the headers.
    redact: {
      paths: [
        'headers.authorization',
        'headers.cookie',
        'headers["set-cookie"]',
        '*.headers.authorization',
        '*.headers.cookie',
        '*.headers["set-cookie"]',
      ],
      censor: '[redacted]',
    },
    serializers: {
      // One-time secrets travel in some query strings (sign-in tokens, OAuth codes): never logged.
      // Log calls may pass any object as `req`; only a real request is reshaped.
      req: (request) =>
        typeof request?.url === 'string' && 'raw' in request
          ? {
              method: request.method,
              url: redactSecrets(request.url),
              host: request.host,
              remoteAddress: request.ip,
            }
          : (request as unknown as Record<string, unknown>),
    },
    ...(logStream ? { stream: logStream } : {}),
  };
}

export function serverOptions(
  config: Config,
  requestIdOf: (headers: IncomingHttpHeaders) => string,
  logStream: NodeJS.WritableStream | undefined,
): FastifyHttpOptions<Server> {
  return {
    logger: logger(config, logStream),
    bodyLimit,
    // Slow clients cannot hold the server: a request must arrive whole within requestTimeout (a
    // body trickled a byte at a time is cut off with a 408), its headers within headersTimeout;
    // Node checks both every second rather than every 30 s.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    trustProxy: config.trustProxy,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // Fastify's own 503 while closing is not a problem document; the lifecycle plugin answers instead.
    return503OnClosing: false,
    // Errors before routing (a URL with broken percent-encoding) take the same problem path.
    frameworkErrors: (_error, request, reply) => {
      reply.header('x-request-id', request.id);
      void sendProblem(
        reply,
        request,
        new ProblemError(400, 'malformed_request', 'The request URL is not valid.'),
      );
    },
    genReqId: (request) => requestIdOf(request.headers),
    clientErrorHandler: refuseUnparsedRequest,
  };
}

/**
 * What Node's HTTP parser refused, before any route: a request line and headers over its limit
 * (431), a request that did not arrive in time (408), anything else that is not HTTP (400). Written
 * to the socket as problem+json, as every refusal is, then the connection closed.
 */
function refuseUnparsedRequest(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          'The request line and headers are over 16 KiB: send a shorter URL (fewer or shorter query parameters) or fewer headers.',
        ]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'Request Timeout',
            'The request did not arrive whole in time: send it again, without pausing.',
          ]
        : [400, 'Bad Request', 'The request is not HTTP this server can read.'];
  const body = JSON.stringify(new ProblemError(status, 'malformed_request', detail).body(randomUUID()));
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}
