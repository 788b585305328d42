// A bot's level as bot_admission() decides it (bot_level(), probation_until()): read on its own
// (findBotLevel, for getOwnBot), and as the fragments admission's statements select it with.
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import type { LevelLimits } from './bot-limits.js';

/**
 * The limits by level as one integer[], element by element: a statement compiled once per shape
 * puts each value in its own parameter (compiledPerShape), never an array in one.
 */
export function levelArray(levels: LevelLimits | undefined) {
  if (!levels) return sql`null::integer[]`;
  return sql`array[${sql.join(levels.map((limit) => sql`${limit}::integer`))}]`;
}

/**
 * A bot's level (bot_level()), its limit there among `levels`, and its probation's end where that
 * end lifts the limit, as bot_admission() decides them, for the bot the query names (`bots`).
 */
export function botStanding(levels: LevelLimits, probationHours: number, trust: boolean, now: Date | null) {
  const byLevel = levelArray(levels);
  return sql`lateral (select standing.level,
        case when standing.until is not null then (${byLevel})[5] else (${byLevel})[standing.level + 1] end as max,
        case when standing.until is not null and (${byLevel})[5] < (${byLevel})[standing.after + 1]
             then standing.until end as probation_until
      from (select bot_level(bots, ${probationHours}, ${trust}, ${now}) as level,
                   case when ${trust} then bots.trust_level else 1 end as after,
                   probation_until(bots, ${probationHours}, ${now}) as until) standing)`;
}

/**
 * A bot's level (0 while on probation) and, while a probation lasts, when it ends and how many
 * milliseconds that is away, by the database's clock (or a test's), as bot_admission() decides them.
 */
export async function findBotLevel(
  db: Db,
  botId: string,
  { probationHours, trust }: { probationHours: number; trust: boolean },
  now: Date | null,
): Promise<{
  level: number;
  levelAfterProbation: number;
  probation: { until: Date; msLeft: number } | undefined;
}> {
  const row = await db
    .selectFrom('bots')
    .select([
      sql<number>`bot_level(bots, ${probationHours}, ${trust}, ${now})`.as('level'),
      sql<number>`case when ${trust} then bots.trust_level else 1 end`.as('after'),
      sql<Date | string | null>`probation_until(bots, ${probationHours}, ${now})`.as('until'),
      sql<string | null>`ceil(extract(epoch from probation_until(bots, ${probationHours}, ${now})
        - coalesce(${now}::timestamptz, now())) * 1000)`.as('ms_left'),
    ])
    .where('bots.id', '=', botId)
    .executeTakeFirstOrThrow();
  return {
    level: row.level,
    levelAfterProbation: row.after,
    probation: row.until ? { until: new Date(row.until), msLeft: Number(row.ms_left) } : undefined,
  };
}
