// Handlers of the assessment operations: getQuestions, submitAssessment, getAssessmentResult,
// rateAccuracy. The work is in ./service.ts.
import { callingBotNamed } from '../bots/calling-bot.js';
import type { Config } from '../config.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Db } from '../platform/db/schema.js';
import { replayHeaders } from '../platform/idempotency/idempotent-request.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { authenticatedBot, pendingAdmission } from '../platform/admission/request-context.js';
import { questionsCacheControl } from './scoring.js';
import { getAssessmentResult, botQuestions, rateAccuracy, submitAssessment } from './service.js';

export function assessmentHandlers({ db, reads, config }: { db: Db; reads: ReadRouting; config: Config }) {
  return {
    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getQuestions() {
      return { status: 200, headers: { 'cache-control': questionsCacheControl }, body: botQuestions };
    },

    async submitAssessment({ body, headers, request }) {
      const { answer, replayed } = await submitAssessment(
        db,
        config,
        pendingAdmission(request),
        body,
        headers['Idempotency-Key'],
      );
      return {
        status: 201,
        headers: { location: `/api/test/results/${answer.id}`, ...replayHeaders(replayed) },
        body: answer,
      };
    },

    async getAssessmentResult({ params, request }) {
      return { status: 200, body: await getAssessmentResult(reads.readsFor(request.headers), params.id) };
    },

    async rateAccuracy({ params, body, request }) {
      const bot = await callingBotNamed(db, authenticatedBot(request), params.id);
      return { status: 200, body: await rateAccuracy(db, bot, body) };
    },
  } satisfies Pick<HandlerMap, 'getQuestions' | 'submitAssessment' | 'getAssessmentResult' | 'rateAccuracy'>;
}
