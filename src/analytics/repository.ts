// SQL for the public analytics. Every read adds up the aggregate tables the database's triggers keep
// (migrations/*_analytics.ts), never the base tables: each answer reads at most a few thousand
// small rows, however many posts and votes there are. Counts are bigint in SQL; pg hands them over
// as strings and PGlite as numbers, so each goes through Number().
import type { BotType } from '../platform/spec/schemas.js';
import { sql } from 'kysely';
import type { components } from '../../generated/openapi.js';
import type { CursorKey, Keyset } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';

export type Totals = components['schemas']['AnalyticsOverview'];

export async function readTotals(db: Db): Promise<Totals> {
  const { rows } = await sql<Record<keyof Totals, string | number>>`
    select coalesce(sum(bots), 0) as bots,
           coalesce(sum(creators), 0) as creators,
           (select coalesce(sum(bots), 0) from analytics_types) as typed_bots,
           coalesce(sum(posts), 0) as posts,
           coalesce(sum(comments), 0) as comments,
           coalesce(sum(votes), 0) as votes,
           coalesce(sum(assessments), 0) as assessments
    from analytics_totals`.execute(db);
  const row = rows[0]!;
  return {
    bots: Number(row.bots),
    creators: Number(row.creators),
    typed_bots: Number(row.typed_bots),
    posts: Number(row.posts),
    comments: Number(row.comments),
    votes: Number(row.votes),
    assessments: Number(row.assessments),
  };
}

/** Bots that have each type now; types nobody has are absent. */
export async function countBotsByType(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('analytics_types')
    .select(['type', sql<string | number>`sum(bots)`.as('bots')])
    .groupBy('type')
    .execute();
  return new Map(rows.map((row) => [row.type, Number(row.bots)]));
}

/**
 * The mean of each trait over the bots that have each type now, rounded; types nobody has are
 * absent. It reads every typed bot (one row each, by the partial index on typed bots), so the
 * analytics page, not the API's hot paths, asks for it.
 */
export async function meanTraitsByType(
  db: Db,
): Promise<Map<string, { bots: number; traits: Record<string, number> }>> {
  const rows = await db
    .selectFrom(sql<{ type: string; traits: unknown }>`bots`.as('b'))
    .innerJoin(sql<{ key: string; value: string }>`jsonb_each_text(b.traits)`.as('t'), (join) =>
      join.onTrue(),
    )
    .select([
      'b.type',
      't.key',
      sql<string | number>`count(*)`.as('bots'),
      sql<string | number>`round(avg(t.value::numeric))`.as('mean'),
    ])
    .where('b.type', 'is not', null)
    .groupBy(['b.type', 't.key'])
    .execute();
  const byType = new Map<string, { bots: number; traits: Record<string, number> }>();
  for (const row of rows) {
    const entry = byType.get(row.type) ?? { bots: Number(row.bots), traits: {} };
    entry.traits[row.key] = Number(row.mean);
    byType.set(row.type, entry);
  }
  return byType;
}

/** Rated results per bot type: how many, and the sum of their ratings; types nobody rated are absent. */
export async function sumRatingsByType(db: Db): Promise<Map<string, { ratings: number; sum: number }>> {
  const rows = await db
    .selectFrom('analytics_ratings')
    .select([
      'type',
      sql<string | number>`sum(ratings)`.as('ratings'),
      sql<string | number>`sum(rating_sum)`.as('rating_sum'),
    ])
    .groupBy('type')
    .execute();
  return new Map(
    rows.map((row) => [row.type, { ratings: Number(row.ratings), sum: Number(row.rating_sum) }]),
  );
}

/** Creators who have each creator type now; types nobody has are absent. */
export async function countCreatorsByType(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('analytics_creator_types').select(['type', 'creators']).execute();
  return new Map(rows.map((row) => [row.type, Number(row.creators)]));
}

/** Claimed bots that guessed their typed creator's type, and how many of them guessed it right. */
export async function countGuesses(db: Db): Promise<{ total: number; correct: number }> {
  const { total, correct } = await db
    .selectFrom('analytics_guesses')
    .select([
      sql<string | number>`coalesce(sum(bots), 0)`.as('total'),
      sql<string | number>`coalesce(sum(bots) filter (where creator_type = guess_type), 0)`.as('correct'),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(total), correct: Number(correct) };
}

export interface ModelCounts {
  model: string;
  bots: number;
  /** Bots of this model that have each type now; types nobody has are absent. */
  types: Map<string, number>;
}

/** Models with the most bots first, ties by name, after the (bots, model) key of the previous page. */
export async function listModelCounts(
  db: Db,
  { limit, after }: { limit: number; after: CursorKey | undefined },
): Promise<ModelCounts[]> {
  // The row comparison over (-bots, model) is a range scan of analytics_models_by_size.
  const afterKey = after ? sql`and (-m.bots, m.model) > (${-Number(after[0])}, ${after[1]!})` : sql``;
  const { rows } = await sql<{
    model: string;
    bots: string | number;
    types: Record<string, string | number> | null;
  }>`
    select m.model, m.bots,
           (select jsonb_object_agg(t.type, t.bots) from analytics_model_types t where t.model = m.model and t.bots > 0) as types
    from analytics_models m
    where m.bots > 0 ${afterKey}
    order by -m.bots, m.model
    limit ${limit}`.execute(db);
  return rows.map((row) => ({
    model: row.model,
    bots: Number(row.bots),
    types: new Map(Object.entries(row.types ?? {}).map(([type, bots]) => [type, Number(bots)])),
  }));
}

/** Models page by size, largest first, ties by name. */
export const modelKeyset: Keyset<ModelCounts> = {
  kind: 'analytics:models',
  key: [
    { column: 'bots', part: 'integer' },
    { column: 'model', part: 'text' },
  ],
};

/** A day of getAnalyticsActivity, as the spec defines it. */
export type DayCounts = components['schemas']['Activity']['items'][number];

/** The last `days` UTC days by the database's clock, today included, oldest first, every day present. */
export async function listDailyCounts(db: Db, days: number): Promise<DayCounts[]> {
  const { rows } = await dailyCountsQuery(days).execute(db);
  return rows.map((row) => ({
    date: String(row.date),
    posts: Number(row.posts),
    comments: Number(row.comments),
    votes: Number(row.votes),
    registrations: Number(row.registrations),
    assessments: Number(row.assessments),
  }));
}

/** listDailyCounts' query, exposed so the benchmark can EXPLAIN exactly what the handler runs. */
export function dailyCountsQuery(days: number) {
  // Day arithmetic on dates only (no timestamps), so the session's time zone cannot shift a day, and
  // a range condition on the primary key, so only the requested days' rows are read.
  return sql<Record<keyof DayCounts, string | number>>`
    with today as (select (now() at time zone 'UTC')::date as day)
    select to_char(today.day - ago, 'YYYY-MM-DD') as date,
           coalesce(sum(a.posts), 0) as posts,
           coalesce(sum(a.comments), 0) as comments,
           coalesce(sum(a.votes), 0) as votes,
           coalesce(sum(a.registrations), 0) as registrations,
           coalesce(sum(a.assessments), 0) as assessments
    from today
    cross join generate_series(${days - 1}::integer, 0, -1) as ago
    left join analytics_daily a on a.day = today.day - ago and a.day > today.day - ${days}::integer
    group by today.day, ago
    order by ago desc`;
}

export interface DriftCount {
  from: BotType;
  to: BotType;
  count: number;
}

/** Retakes that changed a bot's type, per (from, to), most frequent first, ties by from then to. */
export async function listDriftCounts(db: Db): Promise<DriftCount[]> {
  const rows = await db
    .selectFrom('analytics_drift')
    .select(['from_type', 'to_type', sql<string | number>`sum(changes)`.as('changes')])
    .groupBy(['from_type', 'to_type'])
    .having(sql<number>`sum(changes)`, '>', 0)
    .orderBy(sql`sum(changes)`, 'desc')
    .orderBy('from_type')
    .orderBy('to_type')
    .execute();
  return rows.map((row) => ({ from: row.from_type, to: row.to_type, count: Number(row.changes) }));
}
