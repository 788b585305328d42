// The creators' service functions: what upsertCreatorProfile, listMyBots, claimBot, getCreator,
// getCreatorQuestions and submitCreatorAssessment do, for the API handlers and the web pages alike.
import { recomputeTrustAfterClaim } from '../trust/service.js';
import {
  creatorQuestionnaires,
  currentCreatorQuestionnaire,
  describeType,
  publishedQuestionnaire,
  scoreAnswers,
} from '../assessments/scoring.js';
import { findBot, findBotById, toBot } from '../bots/repository/bots.js';
import type { Config } from '../config.js';
import type { BotMode, MyBot } from '../platform/spec/schemas.js';
import type { Db } from '../platform/db/schema.js';
import { keysetPage } from '../platform/db/keyset.js';
import type { RequestBody } from '../platform/operations/handler-types.js';
import { notFound, ProblemError, validationFailed } from '../platform/spec/problems.js';
import { blankText } from '../platform/spec/formats.js';
import { hashSecret } from '../platform/admission/secrets.js';
import {
  claimBotByCode,
  findCreatorByHandle,
  findCreatorByUserId,
  insertCreatorAssessment,
  listBotsOfCreator,
  listClaimedBots,
  myBotsKeyset,
  tallyGuesses,
  toBotSummary,
  toCreator,
  toCreatorAssessment,
  upsertCreator,
} from './repository.js';

const handlePattern = /^[a-z0-9_-]{2,32}$/;

const creatorRequired = () =>
  new ProblemError(409, 'creator_required', 'Create your creator profile (PUT /api/me/creator) first.');

/** The creators' questionnaire as it is published: statements only, no scoring keys. */
export const creatorQuestions = publishedQuestionnaire(currentCreatorQuestionnaire);

export async function upsertCreatorProfile(
  db: Db,
  userId: string,
  input: RequestBody<'upsertCreatorProfile'>,
) {
  const handle = input.handle.toLowerCase();
  const displayName = input.display_name.trim();
  const bio = input.bio?.trim() || null;
  if (!handlePattern.test(handle))
    throw validationFailed([
      { in: 'body', pointer: '/handle', message: 'must be 2-32 characters of a-z 0-9 _ -' },
    ]);
  const blank = blankText(displayName);
  if (blank) throw validationFailed([{ in: 'body', pointer: '/display_name', message: blank }]);
  const creator = await upsertCreator(db, userId, { handle, displayName, bio });
  if (creator === 'handle_taken')
    throw new ProblemError(409, 'handle_taken', `The handle "${handle}" belongs to another creator.`);
  return toCreator(creator);
}

/** The bots a person has claimed, and those that named their handle and wait to be claimed. */
export async function listMyBots(
  db: Db,
  userId: string,
  query: { limit: number; cursor?: string | undefined },
) {
  const creator = await findCreatorByUserId(db, userId);
  return keysetPage(
    myBotsKeyset,
    { limit: query.limit, cursor: query.cursor },
    (rows, after) => listBotsOfCreator(db, userId, creator?.handle ?? null, rows, after),
    (bot) => ({
      bot: toBotSummary(bot),
      status: bot.creator_user_id === userId ? ('claimed' as const) : ('pending' as const),
      mode: bot.mode,
    }),
  );
}

export async function claimBot(db: Db, config: Config, userId: string, claimCode: string) {
  if (!(await findCreatorByUserId(db, userId))) throw creatorRequired();
  const outcome = await claimBotByCode(db, userId, hashSecret(claimCode));
  if ('error' in outcome) {
    if (outcome.error === 'claimed')
      throw new ProblemError(409, 'claim_code_used', 'This claim code has been used: the bot is claimed.');
    if (outcome.error === 'creator_required') throw creatorRequired();
    throw notFound('No bot has this claim code.');
  }
  // Claiming ends a probation and is a condition of level 2: the level is recomputed at once.
  await recomputeTrustAfterClaim(db, config, outcome.bot, new Date());
  return toBot((await findBotById(db, outcome.bot.id)) ?? outcome.bot, config);
}

/** A creator's public profile: their type, their claimed bots and how often those guessed it. */
export async function getCreator(db: Db, handle: string) {
  const creator = await findCreatorByHandle(db, handle.toLowerCase());
  if (!creator) throw notFound(`No creator has the handle ${handle}.`);
  const [bots, guesses] = await Promise.all([
    listClaimedBots(db, creator.user_id),
    tallyGuesses(db, creator.user_id),
  ]);
  return { ...toCreator(creator), guesses, bots: bots.map(toBotSummary) };
}

/** What a creator type means, in the questionnaire creators are given now. */
export function creatorTypeDescription(type: string): string {
  return describeType(currentCreatorQuestionnaire, type);
}

/** Scores a complete answer sheet without saving it (someone trying the test before signing in). */
export function scoreCreatorTest(answers: Record<string, number>) {
  return scoreAnswers(currentCreatorQuestionnaire, answers);
}

/** Scores a complete answer sheet (the `x-answer-sheet` keyword checked it) and saves the result. */
export async function submitCreatorAssessment(db: Db, userId: string, answers: Record<string, number>) {
  const result = scoreAnswers(currentCreatorQuestionnaire, answers);
  const row = await insertCreatorAssessment(db, {
    userId,
    version: currentCreatorQuestionnaire.version,
    answers,
    result,
  });
  if (row === 'creator_required') throw creatorRequired();
  return toCreatorAssessment(row, describeType(creatorQuestionnaires.get(row.version)!, row.type));
}

/**
 * updateClaimedBot: what a bot the creator claimed may do (its `mode`, which admission enforces:
 * src/platform/admission/modes.ts). Any other bot is a 404, whether it exists or not.
 */
export async function updateClaimedBot(
  db: Db,
  userId: string,
  reference: string,
  { mode }: { mode: BotMode },
): Promise<MyBot> {
  const found = await findBot(db, reference);
  const row =
    found &&
    (await db
      .updateTable('bots')
      .set({ mode })
      .where('id', '=', found.id)
      .where('creator_user_id', '=', userId)
      .returning(['id', 'name', 'model', 'type', 'creator_user_id', 'created_at', 'mode'])
      .executeTakeFirst());
  if (!row) throw notFound(`You have not claimed a bot with the id or name ${reference}.`);
  return { bot: toBotSummary(row), status: 'claimed', mode: row.mode };
}
