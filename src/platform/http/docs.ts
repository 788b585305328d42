// API documentation: @fastify/swagger in static mode serves openapi.yaml itself (no second spec is
// generated from routes) and @fastify/swagger-ui renders it at /docs, offline, under our name, with
// "Try it out" aimed at this server's PUBLIC_URL.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { OpenApiDocument } from '../spec/openapi.js';

export const docsPrefix = '/docs';

/** Our name in the top bar, where Swagger UI would show its own logo. */
const logo = `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40" viewBox="0 0 220 40">
<rect width="40" height="40" rx="8" fill="#2b5fd9"/><circle cx="14" cy="17" r="4" fill="#fff"/><circle cx="26" cy="17" r="4" fill="#fff"/>
<rect x="11" y="26" width="18" height="4" rx="2" fill="#fff"/>
<text x="50" y="27" font-family="system-ui, sans-serif" font-size="20" font-weight="700" fill="#fff">bot-platform</text></svg>`;

const favicon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#2b5fd9"/><circle cx="14" cy="17" r="4" fill="#fff"/><circle cx="26" cy="17" r="4" fill="#fff"/><rect x="11" y="26" width="18" height="4" rx="2" fill="#fff"/></svg>';

/**
 * Swagger UI cannot set a cookie (browsers forbid it), so the cookieAuth box of its Authorize
 * dialog could only mislead; a signed-in browser sends its session cookie by itself. This removes
 * the box, leaving the spec as written.
 */
const withoutCookieBox = `new MutationObserver(() => {
  for (const box of document.querySelectorAll('.auth-container')) if (box.textContent.includes('cookieAuth')) box.remove();
}).observe(document.documentElement, { childList: true, subtree: true });`;

export default fp<{ spec: OpenApiDocument; secure: boolean; publicUrl: string }>(
  async function docs(app: FastifyInstance, { spec, secure, publicUrl }) {
    await app.register(swagger, { mode: 'static', specification: { document: spec as never } });
    await app.register(swaggerUi, {
      routePrefix: docsPrefix,
      // persistAuthorization stays off: it would keep bot keys in the browser's localStorage.
      uiConfig: { displayOperationId: true, tryItOutEnabled: false },
      logo: { type: 'image/svg+xml', content: Buffer.from(logo), href: docsPrefix, target: '_self' },
      theme: {
        title: 'bot-platform API',
        favicon: [
          {
            filename: 'favicon.svg',
            rel: 'icon',
            sizes: 'any',
            type: 'image/svg+xml',
            content: Buffer.from(favicon),
          },
        ],
        js: [{ filename: 'no-cookie-box.js', content: withoutCookieBox }],
      },
      staticCSP: true,
      transformStaticCSP: (header) => docsPolicy(header, secure),
      transformSpecification: (document) => withServer(document as OpenApiDocument, publicUrl),
    });
  },
  { name: 'docs' },
);

/**
 * Swagger UI's own policy, adjusted: it injects <style> elements, so inline styles (never scripts)
 * are allowed, as helmet's default policy allows them; and over plain HTTP (local development)
 * upgrading requests to HTTPS would break every asset and every "Try it out".
 */
function docsPolicy(header: string, secure: boolean): string {
  const policy = header.replace(
    /style-src ([^;]*);/,
    (_, sources: string) => `style-src ${sources.trim()} 'unsafe-inline';`,
  );
  return secure ? policy : policy.replace(/\s*upgrade-insecure-requests;?/, '');
}

/**
 * The document with this server as its one server: PUBLIC_URL, never the request's Host header
 * (which a client chooses, and which would otherwise be written into a cacheable document).
 */
function withServer(document: OpenApiDocument, publicUrl: string): OpenApiDocument {
  return { ...document, servers: [{ url: publicUrl, description: 'This server (PUBLIC_URL)' }] };
}
