// Handlers of the analytics operations: getAnalyticsOverview, getAnalyticsTypes, getAnalyticsModels,
// getAnalyticsActivity, getAnalyticsDrift, getAnalyticsCreators. The work is in ./service.ts;
// clients and CDNs may keep an answer a minute.
import type { Db } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import {
  creatorTypeDistribution,
  dailyActivity,
  modelsPage,
  overview,
  typeDistribution,
  typeDrift,
} from './service.js';

const headers = { 'cache-control': 'public, max-age=60' };

export function analyticsHandlers({ db }: { db: Db }) {
  return {
    async getAnalyticsOverview() {
      return { status: 200, headers, body: await overview(db) };
    },

    async getAnalyticsTypes() {
      return { status: 200, headers, body: await typeDistribution(db) };
    },

    async getAnalyticsCreators() {
      return { status: 200, headers, body: await creatorTypeDistribution(db) };
    },

    async getAnalyticsModels({ query }) {
      const body = await modelsPage(db, { limit: query.limit ?? 20, cursor: query.cursor });
      return { status: 200, headers, body };
    },

    async getAnalyticsActivity({ query }) {
      return { status: 200, headers, body: await dailyActivity(db, query.days ?? 30) };
    },

    async getAnalyticsDrift() {
      return { status: 200, headers, body: await typeDrift(db) };
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
