// Conditional GETs for the public, cacheable reads: the operations whose 200 response documents an
// ETag header in openapi.yaml. The weak ETag is a hash of the serialized body, the very bytes that
// would be sent, and 304 Not Modified answers an If-None-Match that already names it. Nothing is
// cached on the server: the representation is built fresh, so a change is visible on the very next
// request.
import { hash } from 'node:crypto';
import type { onSendAsyncHookHandler } from 'fastify';

export const conditionalGet: onSendAsyncHookHandler = async (request, reply, payload) => {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  // One-shot hashing: a third cheaper than a Hash object for a page-sized body.
  const etag = `W/"${hash('sha256', payload, 'base64url').slice(0, 27)}"`;
  reply.header('etag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch === undefined || !matches(ifNoneMatch, etag)) return payload;
  // No payload at all (not null, which Fastify's own HEAD hook cannot take), and no type for it.
  reply.code(304).removeHeader('content-type');
  return undefined;
};

/** RFC 9110 weak comparison against an If-None-Match list (`*`, or comma-separated tags). */
function matches(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
