// SQL for assessment results. A submission is one statement that locks the bot row, so the
// "previous type" a drift is measured from is the type the bot really had, even when the same bot
// submits twice at once; the bot row then points at the new result (`assessment_id`), which is
// the one a rating applies to.
import { sql, type Selectable } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { toAccuracy } from '../bots/repository/bots.js';
import {
  admissionAnswer,
  admissionShape,
  earlierAnswer,
  idempotentWriteColumns,
  rememberedAnswer,
  withAdmission,
} from '../platform/admission/repository.js';
import type { AdmissionAsk } from '../platform/admission/bot-admission.js';
import { idempotentWrite, type IdempotentWrite } from '../platform/idempotency/idempotent-write.js';
import { retryingDeadlocks } from '../platform/db/deadlocks.js';
import type { Db, ScoredResultColumns } from '../platform/db/schema.js';
import type { BotType, CreatorType, Traits } from '../platform/spec/schemas.js';
import type { Result } from './scoring.js';

type Assessment = components['schemas']['Assessment'];

/** Where a new result's next steps point: the bot's name, and its creator's handle if there is a profile to show. */
export interface SubmittedFor {
  botName: string;
  creatorHandle: string | null;
}

export async function insertAssessment(
  db: Db,
  ask: AdmissionAsk,
  submission: {
    version: number;
    answers: Record<string, number>;
    result: Result<Traits, BotType>;
    creatorGuessType: CreatorType | null;
  },
): Promise<IdempotentWrite<{ submitted: { row: AssessmentRow; for: SubmittedFor } | undefined }>> {
  const { result } = submission;
  const shape = admissionShape(ask);
  const values = scoredResultValues(submission.version, submission.answers, result);
  const submit = () =>
    withAdmission(db, shape, ask)
      // The bot as it is now, locked: a second submission of the same bot waits here, then reads
      // the type this one gives it.
      .with('prior', (db) =>
        db
          .selectFrom('bots')
          .innerJoin('admitted', 'admitted.id', 'bots.id')
          .select(['bots.id', 'bots.type', 'bots.name'])
          // The creator who claimed the bot, else the one it named at registration, if that profile exists.
          .select(
            sql<string | null>`coalesce(
            (select c.handle from creators c where c.user_id = bots.creator_user_id),
            (select c.handle from creators c where c.handle = bots.requested_creator_handle))`.as(
              'creator_handle',
            ),
          )
          .where('admitted.admits', '=', true)
          .forNoKeyUpdate('bots'),
      )
      .with('inserted', (db) =>
        db
          .insertInto('assessments')
          .columns([
            ...(Object.keys(values) as Array<keyof typeof values>),
            'bot_id',
            'drift_from',
            'creator_guess_type',
          ])
          .expression(
            db
              .selectFrom('prior')
              .select([
                ...Object.entries(values).map(([column, value]) => sql.val(value).as(column)),
                'prior.id',
                sql<BotType | null>`case when prior.type <> ${result.type} then prior.type end`.as(
                  'drift_from',
                ),
                sql.val(submission.creatorGuessType).as('creator_guess_type'),
              ]),
          )
          .returningAll(),
      )
      .with('updated', (db) =>
        db
          .updateTable('bots')
          .from('inserted')
          .set({
            type: result.type,
            secondary_type: result.secondary_type,
            traits: JSON.stringify(result.traits),
            assessment_id: sql.ref('inserted.id'),
            // A retake without a guess keeps the bot's earlier guess.
            creator_guess_type: sql`coalesce(${submission.creatorGuessType}, bots.creator_guess_type)`,
          })
          .whereRef('bots.id', '=', 'inserted.bot_id'),
      )
      .with('answer', (db) =>
        db
          .selectFrom('inserted as assessments')
          .innerJoin('prior', (join) => join.onTrue())
          .selectAll('assessments')
          .select(['prior.name as bot_name', 'prior.creator_handle']),
      )
      .with('remembered', () => rememberedAnswer(shape, ask))
      .selectFrom('admitted')
      .leftJoin('answer', (join) => join.onTrue())
      .leftJoin('earlier', (join) => join.onTrue())
      .select(idempotentWriteColumns)
      .selectAll('answer')
      .executeTakeFirst();
  return idempotentWrite(async () => {
    const row = await retryingDeadlocks(submit);
    return {
      admission: admissionAnswer(row),
      earlier: earlierAnswer(row),
      submitted: row?.id ? submittedAnswer(row as SubmittedRow) : undefined,
    };
  });
}

/** An assessment row with the bot it was submitted for, as submitAssessment's statement answers it. */
export type SubmittedRow = AssessmentRow & { bot_name: string; creator_handle: string | null };

/** The timestamps of a submitted row, for reviving a remembered one. */
export const submittedRowDates = [
  'created_at',
  'rated_at',
] as const satisfies readonly (keyof SubmittedRow)[];

/** A submitted row as the assessment and whom it was submitted for. */
export function submittedAnswer(row: SubmittedRow): { row: AssessmentRow; for: SubmittedFor } {
  return { row, for: { botName: row.bot_name, creatorHandle: row.creator_handle } };
}

/** A bot's assessments, newest first (its history of types). */
export async function listAssessmentsOfBot(db: Db, botId: string, limit: number) {
  return db
    .selectFrom('assessments')
    .selectAll()
    .where('bot_id', '=', botId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function findAssessment(db: Db, id: string) {
  return db.selectFrom('assessments').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Rates the bot's latest assessment (the one its type comes from), replacing any earlier rating;
 * undefined when the bot has none. One statement: a retake committing meanwhile leaves the rating
 * on the result the bot had when it rated.
 */
export async function rateLatestAssessment(
  db: Db,
  botId: string,
  rating: { rating: number; comment: string | null },
) {
  return db
    .updateTable('assessments')
    .set({
      accuracy_rating: rating.rating,
      accuracy_comment: rating.comment,
      rated_at: sql`date_trunc('milliseconds', now())`,
    })
    .where('id', '=', (eb) => eb.selectFrom('bots').select('bots.assessment_id').where('bots.id', '=', botId))
    .returningAll()
    .executeTakeFirst();
}

/** The columns a scored result is stored with, a bot's or a creator's. */
export function scoredResultValues<TypeName extends string>(
  version: number,
  answers: Record<string, number>,
  result: Result<object, TypeName>,
) {
  return {
    version,
    answers: JSON.stringify(answers),
    type: result.type,
    secondary_type: result.secondary_type,
    traits: JSON.stringify(result.traits),
    confidence: result.confidence,
  };
}

type AssessmentRow = NonNullable<Awaited<ReturnType<typeof findAssessment>>>;

/** What every scored result shows, a bot's or a creator's, from its row (the scoring's own fields). */
export function toScoredResult<TraitScores, TypeName extends BotType | CreatorType>(
  row: Omit<Selectable<ScoredResultColumns<BotType | CreatorType>>, 'type' | 'secondary_type'> & {
    type: TypeName;
    secondary_type: TypeName;
  },
  summary: string,
) {
  return {
    id: row.id,
    version: row.version,
    type: row.type,
    secondary_type: row.secondary_type,
    traits: row.traits as unknown as TraitScores,
    confidence: row.confidence,
    summary,
    created_at: row.created_at.toISOString(),
  };
}

export function toAssessment(row: AssessmentRow, summary: string): Assessment {
  return {
    ...toScoredResult<Traits, BotType>(row, summary),
    bot_id: row.bot_id,
    drift: row.drift_from ? { from: row.drift_from, to: row.type } : null,
    creator_guess_type: row.creator_guess_type,
    accuracy: toAccuracy(row),
  };
}
