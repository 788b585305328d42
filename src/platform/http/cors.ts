// Cross-origin use of the API (openapi.yaml, "Cross-origin use"): a page on any origin may call the
// key-authenticated and public operations with fetch. Their answers, errors included, carry
// `Access-Control-Allow-Origin: *` (never credentials: a key travels in Authorization, which a page
// sends on its own) and expose the response headers the spec documents; a preflight OPTIONS on one
// of their paths answers 204 naming the path's methods and the request headers the spec accepts,
// cached by the browser for Access-Control-Max-Age. A preflight asking for a method or a header we
// do not take gets no allow headers, so the browser stops there. Everything here is read from the
// spec once at start-up. The operations people call with their session cookie are registered
// outside this plugin's scope and so never answer another origin.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { resolved, type OpenApiDocument, type Operation } from '../spec/openapi.js';

export interface CorsOptions {
  spec: OpenApiDocument;
  /** The operations a page on another origin may call. */
  operations: Operation[];
}

/** How long a browser keeps a preflight's answer: Chromium's ceiling (Firefox takes up to a day). */
export const preflightMaxAgeSeconds = 7200;

/** Response headers a page reads without their being exposed (the CORS-safelisted ones), and Set-Cookie, which it never may. */
const readableAnyway = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
  'set-cookie',
]);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the preflight routes this plugin adds (they are not operations of the spec). */
    preflight?: boolean;
  }
}

/** Registers, in the caller's scope, the CORS headers of its routes and a preflight route per path. */
export default fp<CorsOptions>(
  async function cors(app: FastifyInstance, { spec, operations }) {
    const exposed = [...new Set(operations.flatMap((op) => documentedResponseHeaders(spec, op)))]
      .filter((name) => !readableAnyway.has(name.toLowerCase()))
      .sort();
    const answerHeaders = {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': exposed.join(', '),
    };
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(answerHeaders);
    });

    const requestHeaders = [...new Set(operations.flatMap((op) => acceptedRequestHeaders(spec, op)))];
    const allowedHeaders = new Set(requestHeaders.map((name) => name.toLowerCase()));
    const byPath = new Map<string, string[]>();
    for (const op of operations)
      byPath.set(op.path, [...(byPath.get(op.path) ?? []), op.method.toUpperCase()]);
    for (const [path, methods] of byPath) {
      // A GET route answers HEAD too.
      const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
      const preflightHeaders = {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': allowed.join(', '),
        'access-control-allow-headers': requestHeaders.join(', '),
        'access-control-max-age': String(preflightMaxAgeSeconds),
      };
      app.route({
        method: 'OPTIONS',
        url: path.replace(/\{([^}]+)\}/g, ':$1'),
        config: { preflight: true },
        async handler(request: FastifyRequest, reply: FastifyReply) {
          // The answer depends on what the preflight asks for, never on the origin (it is `*`).
          reply.header('vary', 'Access-Control-Request-Method, Access-Control-Request-Headers');
          reply.header('allow', [...allowed, 'OPTIONS'].join(', '));
          const method = request.headers['access-control-request-method'];
          const asked = request.headers['access-control-request-headers'];
          const takes =
            typeof method === 'string' &&
            allowed.includes(method) &&
            (asked ?? '')
              .split(',')
              .map((name) => name.trim().toLowerCase())
              .every((name) => name === '' || allowedHeaders.has(name));
          // Not a preflight we answer: this route's answer headers come off again.
          if (takes) reply.headers(preflightHeaders);
          else for (const name of Object.keys(answerHeaders)) reply.removeHeader(name);
          return reply.code(204).send();
        },
      });
    }
  },
  { name: 'cors' },
);

/** The headers an operation documents on any of its responses (their names as the spec writes them). */
function documentedResponseHeaders(spec: OpenApiDocument, op: Operation): string[] {
  return Object.values(op.operation.responses).flatMap((response) =>
    Object.keys(resolved<{ headers?: Record<string, unknown> }>(spec, response).headers ?? {}),
  );
}

/** The request headers an operation takes: its credential, its body's type, its header parameters. */
function acceptedRequestHeaders(spec: OpenApiDocument, op: Operation): string[] {
  const requirements = op.operation.security ?? spec.security ?? [];
  const bearer = requirements.some((requirement) =>
    Object.keys(requirement).some(
      (scheme) =>
        resolved<{ scheme?: string }>(spec, spec.components.securitySchemes[scheme]).scheme === 'bearer',
    ),
  );
  return [
    ...(bearer ? ['Authorization'] : []),
    ...(op.operation.requestBody ? ['Content-Type'] : []),
    ...op.parameters.filter((p) => p.in === 'header').map((p) => p.name),
  ];
}
