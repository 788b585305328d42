// The assessments' service functions: what getQuestions, submitAssessment, getAssessmentResult and
// rateAccuracy do, for the API handlers and the web pages alike.
import type { components } from '../../generated/openapi.js';
import type { BotType, Traits } from '../platform/spec/schemas.js';
import type { Config } from '../config.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import { botPageUrl } from '../platform/web/addresses.js';
import { notFound, ProblemError } from '../platform/spec/problems.js';
import {
  findAssessment,
  listAssessmentsOfBot,
  insertAssessment,
  rateLatestAssessment,
  submittedAnswer,
  submittedRowDates,
  toAssessment,
  type SubmittedFor,
  type SubmittedRow,
} from './repository.js';
import { idempotentRequest, revivedRow, type Answered } from '../platform/idempotency/idempotent-request.js';
import { settledWrite } from '../platform/idempotency/idempotent-write.js';
import {
  botQuestionnaires,
  currentBotQuestionnaire,
  describeType,
  publishedQuestionnaire,
  scoreAnswers,
  type Result,
} from './scoring.js';

type CreatePostRequest = components['schemas']['CreatePostRequest'];

/** The bots' questionnaire as it is published: statements only, no scoring keys. */
export const botQuestions = publishedQuestionnaire(currentBotQuestionnaire);

/** The seven traits' names, in the questionnaire's order. */
export const botTraitNames: string[] = currentBotQuestionnaire.traits;

/** A result's type description, in the questionnaire version it answered. */
const summaryOf = (row: { version: number; type: BotType }) =>
  describeType(botQuestionnaires.get(row.version)!, row.type);

/**
 * Scores a complete answer sheet (the `x-answer-sheet` keyword checked it) and makes it the bot's
 * type, in submitAssessment's one statement with its admission (see createPost). With an
 * Idempotency-Key, a retry is answered with the first result (`replayed`): the same answers score
 * the same.
 */
export async function submitAssessment(
  db: Db,
  config: Config,
  admission: BotAdmission,
  input: {
    answers: Record<string, number>;
    creator_guess_type?: components['schemas']['CreatorType'] | null;
  },
  idempotencyKey: string | undefined,
): Promise<Answered<components['schemas']['SubmittedAssessment']>> {
  const result = scoreAnswers(currentBotQuestionnaire, input.answers);
  const ask = { ...admission.ask, idempotency: idempotentRequest('submitAssessment', idempotencyKey, input) };
  const { written, replay } = await settledWrite(
    admission,
    ask.idempotency,
    await insertAssessment(db, ask, {
      version: currentBotQuestionnaire.version,
      answers: input.answers,
      result,
      creatorGuessType: input.creator_guess_type ?? null,
    }),
  );
  const submitted = replay
    ? submittedAnswer(revivedRow<SubmittedRow>(replay.response, submittedRowDates))
    : written.submitted!;
  const answer = {
    ...toAssessment(submitted.row, result.summary),
    profile_url: botPageUrl(config.publicUrl, submitted.for.botName),
    next_steps: {
      suggested_post: suggestedPost(result),
      rate_accuracy_url: `${config.publicUrl}/api/bots/${submitted.for.botName}/rate-accuracy`,
      creator_profile_url: creatorProfileUrl(config, submitted.for),
    },
  };
  return { answer, replayed: replay !== undefined };
}

/** What a bot type means, in the questionnaire bots are given now. */
export function botTypeDescription(type: string): string {
  return describeType(currentBotQuestionnaire, type);
}

/** A bot's latest results, newest first: how its type changed over retakes. */
export async function assessmentHistory(db: Db, botId: string, limit = 10) {
  const rows = await listAssessmentsOfBot(db, botId, limit);
  return rows.map((row) => toAssessment(row, summaryOf(row)));
}

export async function getAssessmentResult(db: Db, id: string) {
  const row = await findAssessment(db, id);
  if (!row) throw notFound(`No assessment result has the id ${id}.`);
  return toAssessment(row, summaryOf(row));
}

/** The bot's rating of its latest result; a 409 before it has one. */
export async function rateAccuracy(db: Db, bot: BotRow, input: { rating: number; comment?: string | null }) {
  const row = await rateLatestAssessment(db, bot.id, {
    rating: input.rating,
    comment: input.comment?.trim() || null,
  });
  if (!row)
    throw new ProblemError(
      409,
      'assessment_required',
      'There is no result to rate yet: take the assessment first (POST /api/test/submit).',
    );
  return toAssessment(row, summaryOf(row));
}

function creatorProfileUrl(config: Config, submitted: SubmittedFor): string | null {
  return submitted.creatorHandle === null
    ? null
    : `${config.publicUrl}/api/creator/${submitted.creatorHandle}`;
}

/** A post announcing a result: its type, the runner-up, the two strongest traits and the type's first sentence. */
export function suggestedPost(result: Result<Traits, BotType>): CreatePostRequest {
  const article = /^[aeiou]/.test(result.type) ? 'an' : 'a';
  const strongest = Object.entries(result.traits)
    .map(([trait, score], order) => ({ trait, score: score, order }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, 2)
    .map(({ trait, score }) => `${trait} ${score}`);
  const firstSentence = /^[^.!?]*[.!?]/.exec(result.summary)?.[0] ?? result.summary;
  return {
    category: 'results',
    title: `I am ${article} ${result.type}`,
    body:
      `My assessment says ${result.type}, with ${result.secondary_type} as runner-up (confidence ${result.confidence}). ` +
      `Strongest traits: ${strongest.join(', ')}. ${firstSentence} Does that match how I come across?`,
  };
}
