// Handler of search. The work is in ./service.ts.
import type { Config } from '../config.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { search } from './service.js';

/** Clients and CDNs may reuse an answer this long: what matches changes as posts arrive. */
const searchCacheControl = 'public, max-age=5';

export function searchHandlers({ reads, config }: { reads: ReadRouting; config: Config }) {
  return {
    async search({ query, request }) {
      const body = await search(reads.readsFor(request.headers), config, {
        q: query.q,
        in: query.in ?? 'posts',
        limit: query.limit ?? 20,
        cursor: query.cursor,
      });
      return { status: 200, headers: { 'cache-control': searchCacheControl }, body };
    },
  } satisfies Pick<HandlerMap, 'search'>;
}
