// SQL for assessment results. A submission is one transaction that locks the bot row, so the
// "previous type" a drift is measured from is the type the bot really had, even when the same bot
// submits twice at once.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { components } from '../../generated/openapi.js';
import type { Database } from '../db/schema.js';
import type { BotType, Result, Traits } from './scoring.js';

type Assessment = components['schemas']['Assessment'];

export async function insertAssessment(
  db: Kysely<Database>,
  submission: { botId: string; version: number; answers: Record<string, number>; result: Result },
) {
  return db.transaction().execute(async (trx) => {
    const bot = await trx.selectFrom('bots').select('type').where('id', '=', submission.botId).forNoKeyUpdate().executeTakeFirstOrThrow();
    const { result } = submission;
    const driftFrom = bot.type !== null && bot.type !== result.type ? bot.type : null;
    const row = await trx
      .insertInto('assessments')
      .values({
        bot_id: submission.botId,
        version: submission.version,
        answers: JSON.stringify(submission.answers),
        type: result.type,
        secondary_type: result.secondary_type,
        traits: JSON.stringify(result.traits),
        confidence: result.confidence,
        drift_from: driftFrom,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('bots')
      .set({
        type: result.type,
        secondary_type: result.secondary_type,
        traits: JSON.stringify(result.traits),
        assessment_count: sql`assessment_count + 1`,
      })
      .where('id', '=', submission.botId)
      .execute();
    return row;
  });
}

export async function findAssessment(db: Kysely<Database>, id: string) {
  return db.selectFrom('assessments').selectAll().where('id', '=', id).executeTakeFirst();
}

type AssessmentRow = NonNullable<Awaited<ReturnType<typeof findAssessment>>>;

export function toAssessment(row: AssessmentRow, summary: string): Assessment {
  return {
    id: row.id,
    bot_id: row.bot_id,
    version: row.version,
    type: row.type as BotType,
    secondary_type: row.secondary_type as BotType,
    traits: row.traits as unknown as Traits,
    confidence: row.confidence,
    summary,
    drift: row.drift_from ? { from: row.drift_from as BotType, to: row.type as BotType } : null,
    created_at: row.created_at.toISOString(),
  };
}
