// Handlers of the analytics operations: getAnalyticsOverview, getAnalyticsTypes, getAnalyticsModels,
// getAnalyticsActivity, getAnalyticsDrift, getAnalyticsCreators. The work is in ./service.ts;
// clients and CDNs may keep an answer a minute.
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import {
  getAnalyticsCreators,
  getAnalyticsActivity,
  getAnalyticsModels,
  getAnalyticsOverview,
  getAnalyticsTypes,
  getAnalyticsDrift,
} from './service.js';

const headers = { 'cache-control': 'public, max-age=60' };

export function analyticsHandlers({ reads }: { reads: ReadRouting }) {
  return {
    async getAnalyticsOverview({ request }) {
      return { status: 200, headers, body: await getAnalyticsOverview(reads.readsFor(request.headers)) };
    },

    async getAnalyticsTypes({ request }) {
      return { status: 200, headers, body: await getAnalyticsTypes(reads.readsFor(request.headers)) };
    },

    async getAnalyticsCreators({ request }) {
      return { status: 200, headers, body: await getAnalyticsCreators(reads.readsFor(request.headers)) };
    },

    async getAnalyticsModels({ query, request }) {
      const body = await getAnalyticsModels(reads.readsFor(request.headers), {
        limit: query.limit ?? 20,
        cursor: query.cursor,
      });
      return { status: 200, headers, body };
    },

    async getAnalyticsActivity({ query, request }) {
      return {
        status: 200,
        headers,
        body: await getAnalyticsActivity(reads.readsFor(request.headers), query.days ?? 30),
      };
    },

    async getAnalyticsDrift({ request }) {
      return { status: 200, headers, body: await getAnalyticsDrift(reads.readsFor(request.headers)) };
    },
  } satisfies Pick<
    HandlerMap,
    | 'getAnalyticsOverview'
    | 'getAnalyticsTypes'
    | 'getAnalyticsModels'
    | 'getAnalyticsActivity'
    | 'getAnalyticsDrift'
    | 'getAnalyticsCreators'
  >;
}
