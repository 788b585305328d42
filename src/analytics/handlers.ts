// Handlers of the analytics operations: getAnalyticsOverview, getAnalyticsTypes, getAnalyticsModels,
// getAnalyticsActivity, getAnalyticsDrift, getAnalyticsCreators. Public aggregates, read from the
// tables the database keeps up to date in the same transactions as the writes; clients and CDNs may
// keep an answer a minute.
import type { Kysely } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { currentBotQuestionnaire, currentCreatorQuestionnaire } from '../assessments/scoring.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { Database } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import {
  countBotsByType,
  countCreatorsByType,
  countGuesses,
  listDailyCounts,
  listDriftCounts,
  listModelCounts,
  modelKeyOf,
  readTotals,
  sumRatingsByType,
} from './repository.js';

type BotType = components['schemas']['BotType'];
type TypeCounts = components['schemas']['TypeCounts'];

const headers = { 'cache-control': 'public, max-age=60' };

/** The eight bot types, in the order the questionnaire (and the BotType enum) lists them. */
const botTypes: BotType[] = currentBotQuestionnaire.types.map((type) => type.name);
/** The eight creator types, in the order of the CreatorType enum. */
const creatorTypes = currentCreatorQuestionnaire.types.map((type) => type.name);

/** part / whole to `places` decimal places; `empty` when there is no whole. */
function ratio<T>(part: number, whole: number, places: number, empty: T): number | T {
  const scale = 10 ** places;
  return whole === 0 ? empty : Math.round((part / whole) * scale) / scale;
}

function typeCounts(counts: Map<string, number>): TypeCounts {
  return Object.fromEntries(botTypes.map((type) => [type, counts.get(type) ?? 0])) as TypeCounts;
}

export function analyticsHandlers({ db }: { db: Kysely<Database> }) {
  return {
    async getAnalyticsOverview() {
      return { status: 200, headers, body: await readTotals(db) };
    },

    async getAnalyticsTypes() {
      const [counts, ratings] = await Promise.all([countBotsByType(db), sumRatingsByType(db)]);
      const typedBots = [...counts.values()].reduce((sum, n) => sum + n, 0);
      const items = botTypes.map((type) => {
        const bots = counts.get(type) ?? 0;
        const rated = ratings.get(type) ?? { ratings: 0, sum: 0 };
        return {
          type,
          bots,
          share: ratio(bots, typedBots, 4, 0),
          accuracy: { ratings: rated.ratings, mean_rating: ratio(rated.sum, rated.ratings, 2, null) },
        };
      });
      return { status: 200, headers, body: { typed_bots: typedBots, items } };
    },

    async getAnalyticsCreators() {
      const [totals, counts, guesses] = await Promise.all([
        readTotals(db),
        countCreatorsByType(db),
        countGuesses(db),
      ]);
      const typedCreators = [...counts.values()].reduce((sum, n) => sum + n, 0);
      const items = creatorTypes.map((type) => {
        const creators = counts.get(type) ?? 0;
        return { type, creators, share: ratio(creators, typedCreators, 4, 0) };
      });
      return {
        status: 200,
        headers,
        body: {
          creators: totals.creators,
          typed_creators: typedCreators,
          items,
          guesses: { ...guesses, accuracy: ratio(guesses.correct, guesses.total, 4, null) },
        },
      };
    },

    async getAnalyticsModels({ query }) {
      const limit = query.limit ?? 20;
      const after = query.cursor
        ? decodeCursor(query.cursor, 'analytics:models', ['integer', 'text'])
        : undefined;
      const rows = await listModelCounts(db, { limit: limit + 1, after });
      const page = rows.slice(0, limit);
      const items = page.map((row) => ({
        model: row.model,
        bots: row.bots,
        typed_bots: [...row.types.values()].reduce((sum, n) => sum + n, 0),
        types: typeCounts(row.types),
      }));
      const nextCursor =
        rows.length > limit ? encodeCursor('analytics:models', modelKeyOf(page.at(-1)!)) : null;
      return { status: 200, headers, body: { items, next_cursor: nextCursor } };
    },

    async getAnalyticsActivity({ query }) {
      const days = query.days ?? 30;
      return { status: 200, headers, body: { days, items: await listDailyCounts(db, days) } };
    },

    async getAnalyticsDrift() {
      const items = (await listDriftCounts(db)) as Array<{ from: BotType; to: BotType; count: number }>;
      return {
        status: 200,
        headers,
        body: { changes: items.reduce((sum, item) => sum + item.count, 0), items },
      };
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
