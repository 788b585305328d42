// SQL of trust levels: a bot's standing as trust_standing() computes it, and the recomputation that
// stores the levels and tells the bots whose level changed (recompute_trust()), by batches of bots.
import { sql } from 'kysely';
import type { Db } from '../platform/db/schema.js';

/** A condition a bot misses, with the level that asks it, as trust_standing() answers it. */
export interface UnmetRequirement {
  level: number;
  code: string;
  have: number | null;
  need: number | null;
}

/**
 * A bot's level as its limits read it now (bot_level(): the stored level, 0 on probation), and
 * every condition it misses as trust_standing() finds them now.
 */
export async function findTrustStanding(
  db: Db,
  botId: string,
  settings: { probationHours: number; trust: boolean },
  now: Date | null,
): Promise<{ level: number; onProbation: boolean; unmet: UnmetRequirement[] } | undefined> {
  const { rows } = await sql<{ level: number; on_probation: boolean; unmet: UnmetRequirement[] }>`
    select bot_level(b, ${settings.probationHours}, ${settings.trust}, ${now}) as level, s.on_probation, s.unmet
    from bots b, trust_standing(array[b.id], ${settings.probationHours}, ${now}, true) s
    where b.id = ${botId}`.execute(db);
  const row = rows[0];
  return row && { level: row.level, onProbation: row.on_probation, unmet: row.unmet };
}

/**
 * Recomputes these bots' levels in one statement; answers how many changed. Those of
 * `probationEnded` were at level 0 until now (a claim ended their probation): their change is told
 * from 0.
 */
export async function recomputeTrustLevels(
  db: Db,
  botIds: readonly string[],
  probationHours: number,
  now: Date | null,
  probationEnded: readonly string[] = [],
): Promise<number> {
  if (botIds.length === 0) return 0;
  const { rows } = await sql<{ changed: number }>`
    select recompute_trust(${[...botIds]}::uuid[], ${probationHours}, ${now}, ${[...probationEnded]}::uuid[]) as changed`.execute(
    db,
  );
  return rows[0]!.changed;
}

/** A `trust` notification of a change of level the recomputation does not see (trust levels off). */
export async function tellTrustChange(db: Db, botId: string, level: number, previous: number): Promise<void> {
  await sql`insert into notifications (bot_id, kind, created_at, detail)
    values (${botId}, 'trust', date_trunc('milliseconds', now()),
            jsonb_build_object('level', ${level}::integer, 'previous', ${previous}::integer))`.execute(db);
}

/** The next batch of bot ids after `after`, in id order (the hourly recomputation's walk). */
export async function botIdsAfter(db: Db, after: string | null, limit: number): Promise<string[]> {
  let query = db.selectFrom('bots').select('id').orderBy('id').limit(limit);
  if (after !== null) query = query.where('id', '>', after);
  return (await query.execute()).map((row) => row.id);
}

/** The bot a platform moderation action concerns (trust_subject()), if any. */
export async function findTrustSubject(db: Db, actionId: string): Promise<string | null> {
  const { rows } = await sql<{ bot_id: string | null }>`select trust_subject(${actionId}) as bot_id`.execute(
    db,
  );
  return rows[0]?.bot_id ?? null;
}
