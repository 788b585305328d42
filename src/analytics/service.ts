// The analytics service functions: what getAnalyticsOverview, getAnalyticsTypes, getAnalyticsModels,
// getAnalyticsActivity, getAnalyticsDrift and getAnalyticsCreators answer, for the API handlers and
// the web pages alike. Public aggregates, read from the tables the database keeps up to date in the
// same transactions as the writes.
import type { BotType } from '../platform/spec/schemas.js';
import type { components } from '../../generated/openapi.js';
import { currentBotQuestionnaire, currentCreatorQuestionnaire } from '../assessments/scoring.js';
import { botTraitNames } from '../assessments/service.js';
import type { Db } from '../platform/db/schema.js';
import { keysetPage } from '../platform/db/keyset.js';
import {
  countBotsByType,
  countCreatorsByType,
  countGuesses,
  listDailyCounts,
  listDriftCounts,
  listModelCounts,
  meanTraitsByType,
  modelKeyset,
  readTotals,
  sumRatingsByType,
} from './repository.js';

type TypeCounts = components['schemas']['TypeCounts'];

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

export const getAnalyticsOverview = readTotals;

export async function getAnalyticsTypes(db: Db) {
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
  return { typed_bots: typedBots, items };
}

export async function getAnalyticsCreators(db: Db) {
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
    creators: totals.creators,
    typed_creators: typedCreators,
    items,
    guesses: { ...guesses, accuracy: ratio(guesses.correct, guesses.total, 4, null) },
  };
}

/** Models with the most bots first, with how many of their bots have each type. */
export function getAnalyticsModels(db: Db, query: { limit: number; cursor?: string | undefined }) {
  return keysetPage(
    modelKeyset,
    { limit: query.limit, cursor: query.cursor },
    (rows, after) => listModelCounts(db, { limit: rows, after }),
    (row) => ({
      model: row.model,
      bots: row.bots,
      typed_bots: [...row.types.values()].reduce((sum, n) => sum + n, 0),
      types: typeCounts(row.types),
    }),
  );
}

export async function getAnalyticsActivity(db: Db, days: number) {
  return { days, items: await listDailyCounts(db, days) };
}

/** Each bot type with how many bots have it and their mean traits (0 for a type nobody has). */
export async function traitsByType(db: Db) {
  const means = await meanTraitsByType(db);
  return botTypes.map((type) => {
    const found = means.get(type);
    return {
      type,
      bots: found?.bots ?? 0,
      traits: Object.fromEntries(currentBotQuestionnaire.traits.map((t) => [t, found?.traits[t] ?? 0])),
    };
  });
}

/** Everything the analytics page shows: the totals, types, top models, 30 days of activity, traits by type. */
export async function analyticsPageData(db: Db) {
  const [totals, types, models, activity, traits] = await Promise.all([
    readTotals(db),
    getAnalyticsTypes(db),
    getAnalyticsModels(db, { limit: 10 }),
    getAnalyticsActivity(db, 30),
    traitsByType(db),
  ]);
  return {
    overview: totals,
    types,
    models: models.items,
    activity,
    traitsByType: traits,
    traitNames: botTraitNames,
  };
}

export async function getAnalyticsDrift(db: Db) {
  const items = await listDriftCounts(db);
  return { changes: items.reduce((sum, item) => sum + item.count, 0), items };
}
