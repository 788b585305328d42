// Handlers of creators: upsertCreatorProfile, listMyBots, claimBot, submitCreatorAssessment
// (signed-in humans) and the public getCreator and getCreatorQuestions.
import type { Kysely } from 'kysely';
import {
  creatorQuestionnaires,
  currentCreatorQuestionnaire,
  describeType,
  publishedQuestionnaire,
  questionsCacheControl,
  scoreAnswers,
} from '../assessments/scoring.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { hashSecret } from '../bots/api-key.js';
import { toBot } from '../bots/repository.js';
import type { Database } from '../db/schema.js';
import type { HandlerMap } from '../operation-types.js';
import { signedInUserId } from '../plugins/session.js';
import { notFound, ProblemError, validationFailed } from '../problems.js';
import {
  claimBotByCode,
  findCreatorByHandle,
  findCreatorByUserId,
  insertCreatorAssessment,
  listBotsOfCreator,
  listClaimedBots,
  tallyGuesses,
  toBotSummary,
  toCreator,
  toCreatorAssessment,
  upsertCreator,
} from './repository.js';

const handlePattern = /^[a-z0-9_-]{2,32}$/;

const creatorRequired = () =>
  new ProblemError(409, 'creator_required', 'Create your creator profile (PUT /api/me/creator) first.');

export function creatorHandlers({ db }: { db: Kysely<Database> }) {
  const questions = publishedQuestionnaire(currentCreatorQuestionnaire);

  return {
    async upsertCreatorProfile({ body, request }) {
      const handle = body.handle.toLowerCase();
      const displayName = body.display_name.trim();
      const bio = body.bio?.trim() || null;
      if (!handlePattern.test(handle))
        throw validationFailed([
          { in: 'body', pointer: '/handle', message: 'must be 2-32 characters of a-z 0-9 _ -' },
        ]);
      if (!displayName)
        throw validationFailed([{ in: 'body', pointer: '/display_name', message: 'must not be blank' }]);
      const creator = await upsertCreator(db, signedInUserId(request), { handle, displayName, bio });
      if (creator === 'handle_taken')
        throw new ProblemError(409, 'handle_taken', `The handle "${handle}" belongs to another creator.`);
      return { status: 200, body: toCreator(creator) };
    },

    async listMyBots({ query, request }) {
      const userId = signedInUserId(request);
      const creator = await findCreatorByUserId(db, userId);
      const after = query.cursor ? decodeCursor(query.cursor, 'my-bots', ['timestamp', 'uuid']) : undefined;
      const limit = query.limit ?? 20;
      const rows = await listBotsOfCreator(db, userId, creator?.handle ?? null, limit + 1, after);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        status: 200,
        body: {
          items: page.map((bot) => ({
            bot: toBotSummary(bot),
            status: bot.creator_user_id === userId ? ('claimed' as const) : ('pending' as const),
          })),
          next_cursor:
            rows.length > limit && last
              ? encodeCursor('my-bots', [last.created_at.toISOString(), last.id])
              : null,
        },
      };
    },

    async claimBot({ body, request }) {
      const userId = signedInUserId(request);
      if (!(await findCreatorByUserId(db, userId))) throw creatorRequired();
      const outcome = await claimBotByCode(db, userId, hashSecret(body.claim_code));
      if ('error' in outcome) {
        if (outcome.error === 'claimed')
          throw new ProblemError(
            409,
            'claim_code_used',
            'This claim code has been used: the bot is claimed.',
          );
        if (outcome.error === 'creator_required') throw creatorRequired();
        throw notFound('No bot has this claim code.');
      }
      return { status: 200, body: toBot(outcome.bot) };
    },

    async getCreator({ params }) {
      const creator = await findCreatorByHandle(db, params.handle.toLowerCase());
      if (!creator) throw notFound(`No creator has the handle ${params.handle}.`);
      const [bots, guesses] = await Promise.all([
        listClaimedBots(db, creator.user_id),
        tallyGuesses(db, creator.user_id),
      ]);
      return { status: 200, body: { ...toCreator(creator), guesses, bots: bots.map(toBotSummary) } };
    },

    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getCreatorQuestions() {
      return { status: 200, headers: { 'cache-control': questionsCacheControl }, body: questions };
    },

    // The answer sheet is complete and in range: the `x-answer-sheet` validation keyword saw to it.
    async submitCreatorAssessment({ body, request }) {
      const result = scoreAnswers(currentCreatorQuestionnaire, body.answers);
      const row = await insertCreatorAssessment(db, {
        userId: signedInUserId(request),
        version: currentCreatorQuestionnaire.version,
        answers: body.answers,
        result,
      });
      if (row === 'creator_required') throw creatorRequired();
      return {
        status: 201,
        body: toCreatorAssessment(row, describeType(creatorQuestionnaires.get(row.version)!, row.type)),
      };
    },
  } satisfies Pick<
    HandlerMap,
    | 'upsertCreatorProfile'
    | 'listMyBots'
    | 'claimBot'
    | 'getCreator'
    | 'getCreatorQuestions'
    | 'submitCreatorAssessment'
  >;
}
