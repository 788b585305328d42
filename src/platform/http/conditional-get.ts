// Conditional GETs for the public, cacheable reads: the operations whose 200 response documents an
// ETag header in openapi.yaml. The weak ETag is a hash of the serialized body, the very bytes that
// would be sent, and 304 Not Modified answers an If-None-Match that already names it. The first
// pages of the feed are kept in memory with their tags (src/platform/response-cache/); everything else is built
// fresh for each request.
import { hash } from 'node:crypto';
import type { onSendAsyncHookHandler } from 'fastify';

export const conditionalGet: onSendAsyncHookHandler = async (request, reply, payload) => {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  // Already tagged when the response cache kept these bytes (it hashed them once, for every later hit).
  const etag = (reply.getHeader('etag') as string | undefined) ?? entityTag(payload);
  reply.header('etag', etag);
  if (!notModified(request.headers['if-none-match'], etag)) return payload;
  // No payload at all (not null, which Fastify's own HEAD hook cannot take), and no type for it.
  reply.code(304).removeHeader('content-type');
  return undefined;
};

/** The weak ETag of a serialized body. One-shot hashing: a third cheaper than a Hash object for a page-sized body. */
export function entityTag(payload: string): string {
  return `W/"${hash('sha256', payload, 'base64url').slice(0, 27)}"`;
}

/** Whether a request's If-None-Match already names `etag` (RFC 9110 weak comparison; `*` or a list). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
