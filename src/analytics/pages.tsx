// The analytics page (/analytics): the figures of the getAnalytics* operations, drawn.
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { WebPages } from '../platform/web/plugin.js';
import { analyticsPageData } from './service.js';
import { AnalyticsView } from './views.js';

export function analyticsPages(web: WebPages, { reads }: { reads: ReadRouting }) {
  web.app.get('/analytics', web.getRoute(), async (request, reply) => {
    const data = await analyticsPageData(reads.readsFor(request.headers));
    return web.send(request, reply, 'Analytics', <AnalyticsView {...data} />);
  });
}
