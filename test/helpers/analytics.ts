// The analytics as the API answers them, and as direct COUNT / GROUP BY over the base tables says
// they should be. The direct side never reads an analytics_* table.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { currentBotQuestionnaire, currentCreatorQuestionnaire } from '../../src/assessments/scoring.js';
import type { Database } from '../../src/platform/db/schema.js';
import { assertContract } from './contract.js';

type Overview = components['schemas']['AnalyticsOverview'];
type Types = components['schemas']['TypeDistribution'];
type Model = components['schemas']['ModelBreakdownPage']['items'][number];
type Activity = components['schemas']['Activity'];
type Drift = components['schemas']['DriftStats'];
type Creators = components['schemas']['CreatorAnalytics'];

export interface Analytics {
  overview: Overview;
  types: Types;
  models: Model[];
  activity: Activity;
  drift: Drift;
  creators: Creators;
}

const botTypes = currentBotQuestionnaire.types.map((type) => type.name);
const creatorTypes = currentCreatorQuestionnaire.types.map((type) => type.name);
const rounded = (part: number, whole: number, places: number) =>
  Math.round((part / whole) * 10 ** places) / 10 ** places;

/** Every analytics answer from the API; models walked page by page with `modelsPageSize`. */
export async function analyticsFromApi(
  app: FastifyInstance,
  { days = 30, modelsPageSize = 3 } = {},
): Promise<Analytics> {
  const get = async (
    operationId: Parameters<typeof assertContract>[0],
    url: string,
    query: Record<string, string> = {},
  ) => {
    const response = await app.inject({ url, query });
    assert.equal(response.statusCode, 200, response.body);
    assertContract(operationId, response);
    assert.equal(response.headers['cache-control'], 'public, max-age=60');
    return response.json();
  };
  const models: Model[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Model[]; next_cursor: string | null } = await get(
      'getAnalyticsModels',
      '/api/analytics/models',
      {
        limit: String(modelsPageSize),
        ...(cursor ? { cursor } : {}),
      },
    );
    models.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return {
    overview: await get('getAnalyticsOverview', '/api/analytics/overview'),
    types: await get('getAnalyticsTypes', '/api/analytics/types'),
    models,
    activity: await get('getAnalyticsActivity', '/api/analytics/activity', { days: String(days) }),
    drift: await get('getAnalyticsDrift', '/api/analytics/drift'),
    creators: await get('getAnalyticsCreators', '/api/analytics/creators'),
  };
}

/** Rows of a table; a deleted comment's tombstone is no comment. */
const count = (table: 'bots' | 'creators' | 'posts' | 'comments' | 'votes' | 'assessments') =>
  table === 'comments'
    ? sql<number>`(select count(*)::int from comments where deleted_at is null)`
    : sql<number>`(select count(*)::int from ${sql.table(table)})`;

/** The same figures, counted straight from bots, posts, comments, votes and assessments. */
export async function analyticsFromBaseTables(db: Kysely<Database>, { days = 30 } = {}): Promise<Analytics> {
  const overview = (
    await sql<Overview>`
      select ${count('bots')} as bots, ${count('creators')} as creators, (select count(*)::int from bots where type is not null) as typed_bots,
             ${count('posts')} as posts, ${count('comments')} as comments, ${count('votes')} as votes,
             ${count('assessments')} as assessments`.execute(db)
  ).rows[0]!;

  const byType = new Map(
    (
      await sql<{
        type: string;
        n: number;
      }>`select type, count(*)::int as n from bots where type is not null group by type`.execute(db)
    ).rows.map((r) => [r.type, r.n]),
  );
  const share = (n: number) => (overview.typed_bots === 0 ? 0 : rounded(n, overview.typed_bots, 4));
  const ratings = new Map(
    (
      await sql<{ type: string; n: number; total: number }>`
        select type, count(*)::int as n, sum(accuracy_rating)::int as total from assessments where accuracy_rating is not null group by type`.execute(
        db,
      )
    ).rows.map((r) => [r.type, { ratings: r.n, mean_rating: rounded(r.total, r.n, 2) }]),
  );

  // A claimed bot's guess against its creator's type as the creators table has it.
  const creatorRows = (
    await sql<{
      type: string | null;
      n: number;
    }>`select type, count(*)::int as n from creators group by type`.execute(db)
  ).rows;
  const typedCreators = creatorRows.filter((r) => r.type !== null).reduce((sum, r) => sum + r.n, 0);
  const guesses = (
    await sql<{ total: number; correct: number }>`
      select count(*)::int as total, count(*) filter (where c.type = b.creator_guess_type)::int as correct
      from bots b join creators c on c.user_id = b.creator_user_id
      where b.creator_guess_type is not null and c.type is not null`.execute(db)
  ).rows[0]!;
  const creators: Creators = {
    creators: overview.creators,
    typed_creators: typedCreators,
    items: creatorTypes.map((type) => {
      const n = creatorRows.find((r) => r.type === type)?.n ?? 0;
      return { type, creators: n, share: typedCreators === 0 ? 0 : rounded(n, typedCreators, 4) };
    }),
    guesses: {
      ...guesses,
      accuracy: guesses.total === 0 ? null : rounded(guesses.correct, guesses.total, 4),
    },
  };

  const modelRows = (
    await sql<{ model: string; bots: number; type: string | null; n: number }>`
      select b.model, m.bots, b.type, count(*)::int as n
      from bots b join (select model, count(*)::int as bots from bots group by model) m using (model)
      group by b.model, m.bots, b.type
      order by m.bots desc, b.model`.execute(db)
  ).rows;
  const models = new Map<string, Model>();
  for (const row of modelRows) {
    const model = models.get(row.model) ?? {
      model: row.model,
      bots: row.bots,
      typed_bots: 0,
      types: Object.fromEntries(botTypes.map((type) => [type, 0])) as Model['types'],
    };
    if (row.type) {
      model.types[row.type as keyof Model['types']] = row.n;
      model.typed_bots += row.n;
    }
    models.set(row.model, model);
  }

  const activity = (
    await sql<Activity['items'][number]>`
      with days as (
        select to_char((now() at time zone 'UTC')::date - ago, 'YYYY-MM-DD') as date
        from generate_series(0, ${days - 1}::int) as ago
      ),
      per_day as (
        select 'posts' as what, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as date from posts
        union all select 'comments', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') from comments where deleted_at is null
        union all select 'votes', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') from votes
        union all select 'registrations', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') from bots
        union all select 'assessments', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') from assessments
      )
      select days.date,
             count(*) filter (where what = 'posts')::int as posts,
             count(*) filter (where what = 'comments')::int as comments,
             count(*) filter (where what = 'votes')::int as votes,
             count(*) filter (where what = 'registrations')::int as registrations,
             count(*) filter (where what = 'assessments')::int as assessments
      from days left join per_day using (date)
      group by days.date order by days.date`.execute(db)
  ).rows;

  const drift = (
    await sql<Drift['items'][number]>`
      select drift_from as from, type as to, count(*)::int as count from assessments
      where drift_from is not null group by drift_from, type order by count(*) desc, drift_from, type`.execute(
      db,
    )
  ).rows;

  return {
    overview,
    types: {
      typed_bots: overview.typed_bots,
      items: botTypes.map((type) => ({
        type,
        bots: byType.get(type) ?? 0,
        share: share(byType.get(type) ?? 0),
        accuracy: ratings.get(type) ?? { ratings: 0, mean_rating: null },
      })),
    },
    models: [...models.values()],
    activity: { days, items: activity },
    drift: { changes: drift.reduce((sum, d) => sum + d.count, 0), items: drift },
    creators,
  };
}

/** Every analytics answer equals the direct count. */
export async function assertAnalyticsMatchBaseTables(
  app: FastifyInstance,
  db: Kysely<Database>,
  options: { days?: number; modelsPageSize?: number } = {},
) {
  const today = async () =>
    (await sql<{ day: string }>`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD') as day`.execute(db))
      .rows[0]!.day;
  for (;;) {
    const before = await today();
    const [fromApi, fromTables] = [
      await analyticsFromApi(app, options),
      await analyticsFromBaseTables(db, options),
    ];
    // Both sides say "today" with their own now(): compare again if midnight UTC fell in between.
    if ((await today()) !== before) continue;
    assert.deepEqual(fromApi, fromTables);
    return;
  }
}
