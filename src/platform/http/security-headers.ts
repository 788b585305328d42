// helmet's security headers (CSP, HSTS on https, nosniff, frame and referrer policies...) on every
// response. Our policy is the same for every route, so the headers are computed once at start-up
// and set by one hook; @fastify/helmet rebuilt them from the options on every request, which cost
// as much as a whole /healthz. Swagger UI's pages replace the CSP with their own (docs.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

export default fp<{ secure: boolean }>(
  async function securityHeaders(app: FastifyInstance, { secure }) {
    const headers = helmetHeaders(
      helmet({
        // Our pages use only our own stylesheet: no inline styles or scripts anywhere (helmet's
        // default would allow inline styles and any https: stylesheet).
        contentSecurityPolicy: {
          directives: { styleSrc: ["'self'"], upgradeInsecureRequests: secure ? [] : null },
        },
        strictTransportSecurity: secure,
        // Browsers send `Origin: null` on a form's POST from a `no-referrer` page (helmet's default),
        // which our same-origin check must refuse; `same-origin` keeps the Origin for our own forms
        // and still sends nothing to other sites.
        referrerPolicy: { policy: 'same-origin' },
      }),
    );
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(headers);
    });
  },
  { name: 'security-headers' },
);

/** The headers a helmet middleware sets, read once by running it against a response that records them. */
function helmetHeaders(middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  let failure: unknown;
  middleware(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => (failure = error),
  );
  if (failure) throw failure instanceof Error ? failure : new Error('helmet failed', { cause: failure });
  return headers;
}
