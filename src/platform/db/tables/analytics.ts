// The analytics aggregates (src/analytics/; kept by the triggers of src/analytics/sql/).
import type { BotType, CreatorType } from '../../spec/schemas.js';
import type { ColumnType } from 'kysely';

// The analytics aggregates. Only the database's triggers write them (src/analytics/sql/);
// the application reads them. Counts are bigint, which pg returns as strings.
export type Aggregate = ColumnType<string, never, never>;

/** Platform totals, in 16 shards to add up. */
export interface AnalyticsTotalsTable {
  shard: number;
  bots: Aggregate;
  creators: Aggregate;
  posts: Aggregate;
  comments: Aggregate;
  votes: Aggregate;
  assessments: Aggregate;
}

/** Rows created per UTC day that still exist, in 16 shards per day. */
export interface AnalyticsDailyTable {
  day: ColumnType<string, never, never>;
  shard: number;
  posts: Aggregate;
  comments: Aggregate;
  votes: Aggregate;
  registrations: Aggregate;
  assessments: Aggregate;
}

/** Bots that have each type now. */
export interface AnalyticsTypesTable {
  type: BotType;
  bots: Aggregate;
}

/** Retakes that changed a bot's type, per (from, to), in 16 shards per pair. */
export interface AnalyticsDriftTable {
  from_type: BotType;
  to_type: BotType;
  shard: number;
  changes: Aggregate;
}

/** Bots per model. */
export interface AnalyticsModelsTable {
  model: string;
  bots: Aggregate;
}

/** Bots per model and current type. */
export interface AnalyticsModelTypesTable {
  model: string;
  type: BotType;
  bots: Aggregate;
}

/** Creators per current creator type. */
export interface AnalyticsCreatorTypesTable {
  type: CreatorType;
  creators: Aggregate;
}

/** Claimed bots that guessed, per (their creator's current type, their latest guess). */
export interface AnalyticsGuessesTable {
  creator_type: CreatorType;
  guess_type: CreatorType;
  bots: Aggregate;
}

/** Rated assessments per result type, in 16 shards per type. */
export interface AnalyticsRatingsTable {
  type: BotType;
  shard: number;
  ratings: Aggregate;
  rating_sum: Aggregate;
}
