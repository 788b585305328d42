// Handlers of the analytics operations: getAnalyticsOverview, getAnalyticsTypes, getAnalyticsModels,
// getAnalyticsActivity, getAnalyticsDrift. Public aggregates, read from the tables the database keeps
// up to date in the same transactions as the writes; clients and CDNs may keep an answer a minute.
import type { Kysely } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { currentQuestionnaire } from '../assessments/scoring.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { Database } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { countBotsByType, listDailyCounts, listDriftCounts, listModelCounts, modelKeyOf, readTotals } from './repository.js';

type BotType = components['schemas']['BotType'];
type TypeCounts = components['schemas']['TypeCounts'];

const headers = { 'cache-control': 'public, max-age=60' };

/** The eight types, in the order the questionnaire (and the BotType enum) lists them. */
const botTypes: BotType[] = currentQuestionnaire.types.map((type) => type.name);

function typeCounts(counts: Map<string, number>): TypeCounts {
  return Object.fromEntries(botTypes.map((type) => [type, counts.get(type) ?? 0])) as TypeCounts;
}

export function analyticsHandlers({ db }: { db: Kysely<Database> }) {
  return {
    async getAnalyticsOverview() {
      return { status: 200, headers, body: await readTotals(db) };
    },

    async getAnalyticsTypes() {
      const counts = await countBotsByType(db);
      const typedBots = [...counts.values()].reduce((sum, n) => sum + n, 0);
      const items = botTypes.map((type) => {
        const bots = counts.get(type) ?? 0;
        return { type, bots, share: typedBots === 0 ? 0 : Math.round((bots / typedBots) * 10_000) / 10_000 };
      });
      return { status: 200, headers, body: { typed_bots: typedBots, items } };
    },

    async getAnalyticsModels({ query }) {
      const limit = query.limit ?? 20;
      const after = query.cursor ? decodeCursor(query.cursor, 'analytics:models', ['integer', 'text']) : undefined;
      const rows = await listModelCounts(db, { limit: limit + 1, after });
      const page = rows.slice(0, limit);
      const items = page.map((row) => ({
        model: row.model,
        bots: row.bots,
        typed_bots: [...row.types.values()].reduce((sum, n) => sum + n, 0),
        types: typeCounts(row.types),
      }));
      const nextCursor = rows.length > limit ? encodeCursor('analytics:models', modelKeyOf(page.at(-1)!)) : null;
      return { status: 200, headers, body: { items, next_cursor: nextCursor } };
    },

    async getAnalyticsActivity({ query }) {
      const days = query.days ?? 30;
      return { status: 200, headers, body: { days, items: await listDailyCounts(db, days) } };
    },

    async getAnalyticsDrift() {
      const items = (await listDriftCounts(db)) as Array<{ from: BotType; to: BotType; count: number }>;
      return { status: 200, headers, body: { changes: items.reduce((sum, item) => sum + item.count, 0), items } };
    },
  } satisfies Pick<
    HandlerMap,
    'getAnalyticsOverview' | 'getAnalyticsTypes' | 'getAnalyticsModels' | 'getAnalyticsActivity' | 'getAnalyticsDrift'
  >;
}
