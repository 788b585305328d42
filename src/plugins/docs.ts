// API documentation: @fastify/swagger in static mode serves openapi.yaml itself (no second spec is
// generated from routes) and @fastify/swagger-ui renders it at /docs, offline, with "Try it out"
// aimed at the server that served the page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { OpenApiDocument } from '../openapi.js';

export const docsPrefix = '/docs';

export default fp<{ spec: OpenApiDocument; secure: boolean }>(
  async function docs(app: FastifyInstance, { spec, secure }) {
    await app.register(swagger, { mode: 'static', specification: { document: spec as never } });
    await app.register(swaggerUi, {
      routePrefix: docsPrefix,
      // persistAuthorization stays off: it would keep bot keys in the browser's localStorage.
      uiConfig: { displayOperationId: true, tryItOutEnabled: false },
      staticCSP: true,
      transformStaticCSP: (header) => docsPolicy(header, secure),
      transformSpecification: (document, request) => withServerOf(document as OpenApiDocument, request),
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
  const policy = header.replace(/style-src ([^;]*);/, (_, sources: string) => `style-src ${sources.trim()} 'unsafe-inline';`);
  return secure ? policy : policy.replace(/\s*upgrade-insecure-requests;?/, '');
}

/** The document with its `base_url` defaulting to the origin this request reached, so "Try it out" calls this server. */
function withServerOf(document: OpenApiDocument, request: FastifyRequest): OpenApiDocument {
  const baseUrl = document.servers[0]?.variables?.base_url;
  if (baseUrl) baseUrl.default = `${request.protocol}://${request.host}`;
  return document;
}
