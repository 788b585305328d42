// What a route that serves pages from memory asks of a request: the page it names, and where its
// page is read from.
import type { FastifyRequest } from 'fastify';
import type { ReadRouting } from '../db/read-routing.js';
import type { Db } from '../db/schema.js';

/**
 * The key of a first page (no cursor): its URL, which names every parameter the page depends on.
 * Deeper pages are read every time: nobody reads the same one twice in a row.
 */
export function firstPageKey(request: FastifyRequest): string | undefined {
  return request.method === 'GET' && (request.query as { cursor?: unknown }).cursor === undefined
    ? request.url
    : undefined;
}

/** Where a page is read: a page about to be kept for every reader is a shared read. */
export function pageReads(reads: ReadRouting, request: FastifyRequest): Db {
  return request.pageCacheFill ? reads.readsForShared() : reads.readsFor(request.headers);
}
