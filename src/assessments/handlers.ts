// Handlers of the assessment operations: getQuestions, submitAssessment, getAssessmentResult,
// rateAccuracy.
import type { Kysely } from 'kysely';
import type { components } from '../../generated/openapi.js';
import { callingBotNamed } from '../bots/calling-bot.js';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { authenticatedBot } from '../plugins/bearer-auth.js';
import { notFound, ProblemError } from '../problems.js';
import {
  findAssessment,
  insertAssessment,
  rateLatestAssessment,
  toAssessment,
  type SubmittedFor,
} from './repository.js';
import {
  botQuestionnaires,
  currentBotQuestionnaire,
  describeType,
  publishedQuestionnaire,
  questionsCacheControl,
  scoreAnswers,
  type BotType,
  type Result,
  type Traits,
} from './scoring.js';

type CreatePostRequest = components['schemas']['CreatePostRequest'];

export function assessmentHandlers({ db, config }: { db: Kysely<Database>; config: Config }) {
  const questions = publishedQuestionnaire(currentBotQuestionnaire);

  /** A result's type description, in the questionnaire version it answered. */
  const summaryOf = (row: { version: number; type: string }) =>
    describeType(botQuestionnaires.get(row.version)!, row.type);

  return {
    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getQuestions() {
      return { status: 200, headers: { 'cache-control': questionsCacheControl }, body: questions };
    },

    // The answer sheet is complete and in range: the `x-answer-sheet` validation keyword saw to it.
    async submitAssessment({ body, request }) {
      const bot = authenticatedBot(request);
      const result = scoreAnswers(currentBotQuestionnaire, body.answers);
      const submitted = await insertAssessment(db, {
        botId: bot.id,
        version: currentBotQuestionnaire.version,
        answers: body.answers,
        result,
        creatorGuessType: body.creator_guess_type ?? null,
      });
      const profileUrl = `${config.publicUrl}/api/bots/${submitted.for.botName}`;
      return {
        status: 201,
        headers: { location: `/api/test/results/${submitted.row.id}` },
        body: {
          ...toAssessment(submitted.row, result.summary),
          profile_url: profileUrl,
          next_steps: {
            suggested_post: suggestedPost(result),
            rate_accuracy_url: `${profileUrl}/rate-accuracy`,
            creator_profile_url: creatorProfileUrl(config, submitted.for),
          },
        },
      };
    },

    async getAssessmentResult({ params }) {
      const row = await findAssessment(db, params.id);
      if (!row) throw notFound(`No assessment result has the id ${params.id}.`);
      return { status: 200, body: toAssessment(row, summaryOf(row)) };
    },

    async rateAccuracy({ params, body, request }) {
      const bot = await callingBotNamed(db, request, params.id);
      const row = await rateLatestAssessment(db, bot.id, {
        rating: body.rating,
        comment: body.comment?.trim() || null,
      });
      if (!row)
        throw new ProblemError(
          409,
          'assessment_required',
          'There is no result to rate yet: take the assessment first (POST /api/test/submit).',
        );
      return { status: 200, body: toAssessment(row, summaryOf(row)) };
    },
  } satisfies Pick<HandlerMap, 'getQuestions' | 'submitAssessment' | 'getAssessmentResult' | 'rateAccuracy'>;
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
