// Conditional GETs for public, cacheable reads: a weak ETag computed from the representation, and
// 304 Not Modified when the client's If-None-Match already names it. Nothing is cached on the
// server: the representation is built fresh, so a change is visible on the very next request.
import { createHash } from 'node:crypto';

export function conditionalResponse<Body>(ifNoneMatch: string | undefined, body: Body, cacheControl: string) {
  const etag = `W/"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
  const headers = { etag, 'cache-control': cacheControl };
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, etag)) return { status: 304 as const, headers };
  return { status: 200 as const, body, headers };
}

/** RFC 9110 weak comparison against an If-None-Match list (`*`, or comma-separated tags). */
function matches(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}
