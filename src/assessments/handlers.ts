// Handlers of the assessment operations: getQuestions, submitAssessment, getAssessmentResult.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { authenticatedBot } from '../plugins/bearer-auth.js';
import { notFound } from '../problems.js';
import { findAssessment, insertAssessment, toAssessment } from './repository.js';
import { currentQuestionnaire, questionnaires, scoreAnswers } from './scoring.js';

/** The questionnaire changes only with a release: clients and CDNs may keep it an hour. */
const questionsCacheControl = 'public, max-age=3600';

export function assessmentHandlers({ db }: { db: Kysely<Database> }) {
  const questions = {
    version: currentQuestionnaire.version,
    scale: currentQuestionnaire.scale,
    questions: currentQuestionnaire.questions.map(({ id, text }) => ({ id, text })),
  };

  return {
    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getQuestions() {
      return { status: 200, headers: { 'cache-control': questionsCacheControl }, body: questions };
    },

    // The answer sheet is complete and in range: the `x-answer-sheet` validation keyword saw to it.
    async submitAssessment({ body, request }) {
      const bot = authenticatedBot(request);
      const result = scoreAnswers(currentQuestionnaire, body.answers);
      const row = await insertAssessment(db, { botId: bot.id, version: currentQuestionnaire.version, answers: body.answers, result });
      return { status: 201, headers: { location: `/api/test/results/${row.id}` }, body: toAssessment(row, result.summary) };
    },

    async getAssessmentResult({ params }) {
      const row = await findAssessment(db, params.id);
      if (!row) throw notFound(`No assessment result has the id ${params.id}.`);
      const summary = questionnaires.get(row.version)!.types.find((type) => type.name === row.type)!.description;
      return { status: 200, body: toAssessment(row, summary) };
    },
  } satisfies Pick<HandlerMap, 'getQuestions' | 'submitAssessment' | 'getAssessmentResult'>;
}
