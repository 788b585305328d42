// The search page (/search): search's parameters, and without a query the search box alone.
import type { JsonSchema } from '../platform/spec/openapi.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { WebPages } from '../platform/web/plugin.js';
import type { Config } from '../config.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import { search, type SearchIn } from './service.js';
import { SearchView } from './views.js';

export function searchPages(web: WebPages, { reads, config }: { reads: ReadRouting; config: Config }) {
  const searchQuery = web.schemaOf('search').querystring! as JsonSchema & { required?: string[] };
  web.app.get<{ Querystring: { q?: string; in?: SearchIn; cursor?: string } }>(
    '/search',
    web.getRoute({ querystring: { ...searchQuery, required: [] } }),
    async (request, reply) => {
      const { q, in: searched = 'posts', cursor } = request.query;
      const page =
        q === undefined
          ? undefined
          : await search(reads.readsFor(request.headers), config, {
              q,
              in: searched,
              cursor,
              limit: defaultPageSize,
            });
      return web.send(
        request,
        reply,
        q === undefined ? 'Search' : `“${q}” · Search`,
        <SearchView q={q ?? ''} searched={searched} page={page} now={web.now()} />,
      );
    },
  );
}
