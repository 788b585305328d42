// SQL for creators: profiles, the bots they claimed, the bots waiting for them, claiming, and the
// creators' own test. A claim is one conditional UPDATE (only an unclaimed bot changes hands), so a
// code works once even when two humans send it at the same moment.
import { sql } from 'kysely';
import type { components } from '../../generated/openapi.js';
import type { CreatorTraits, CreatorType } from '../platform/spec/schemas.js';
import type { Result } from '../assessments/scoring.js';
import { scoredResultValues, toScoredResult } from '../assessments/repository.js';
import { afterKey, creationOrder, type CursorKey, type Keyset } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import { findBotById, type BotWithCreator } from '../bots/repository/bots.js';

type Creator = components['schemas']['Creator'];
type BotSummary = components['schemas']['BotSummary'];
type GuessTally = components['schemas']['GuessTally'];
type CreatorAssessment = components['schemas']['CreatorAssessment'];

export async function findCreatorByUserId(db: Db, userId: string) {
  return db.selectFrom('creators').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function findCreatorByHandle(db: Db, handle: string) {
  return db.selectFrom('creators').selectAll().where('handle', '=', handle).executeTakeFirst();
}

type CreatorRow = NonNullable<Awaited<ReturnType<typeof findCreatorByUserId>>>;

/** Creates or updates the user's profile; 'handle_taken' when another creator holds the handle. */
export async function upsertCreator(
  db: Db,
  userId: string,
  profile: { handle: string; displayName: string; bio: string | null },
): Promise<CreatorRow | 'handle_taken'> {
  try {
    return await db
      .insertInto('creators')
      .values({
        user_id: userId,
        handle: profile.handle,
        display_name: profile.displayName,
        bio: profile.bio,
      })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          handle: profile.handle,
          display_name: profile.displayName,
          bio: profile.bio,
          updated_at: sql`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if ((error as { code?: string; constraint?: string }).constraint === 'creators_handle_key')
      return 'handle_taken';
    throw error;
  }
}

export function toCreator(row: CreatorRow): Creator {
  return {
    handle: row.handle,
    display_name: row.display_name,
    bio: row.bio,
    type: row.type,
    created_at: row.created_at.toISOString(),
  };
}

/** How many of the creator's claimed bots guessed a type, and how many guessed their current type. */
export async function tallyGuesses(db: Db, userId: string): Promise<GuessTally> {
  const { total, correct } = await db
    .selectFrom('bots')
    .select([
      sql<string | number>`count(*) filter (where creator_guess_type is not null)`.as('total'),
      // bots.creator_type is the claiming creator's type, kept by a trigger.
      sql<string | number>`count(*) filter (where creator_guess_type = creator_type)`.as('correct'),
    ])
    .where('creator_user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { total: Number(total), correct: Number(correct) };
}

/**
 * Records a creators' test result and makes its type the creator's, in one transaction; 'creator_required'
 * when the user has no creator profile.
 */
export async function insertCreatorAssessment(
  db: Db,
  submission: {
    userId: string;
    version: number;
    answers: Record<string, number>;
    result: Result<CreatorTraits, CreatorType>;
  },
) {
  const { result } = submission;
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('creator_assessments')
        .values({
          ...scoredResultValues(submission.version, submission.answers, result),
          user_id: submission.userId,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('creators')
        .set({ type: result.type, updated_at: sql`now()` })
        .where('user_id', '=', submission.userId)
        .execute();
      return row;
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23503') return 'creator_required' as const;
    throw error;
  }
}

type CreatorAssessmentRow = Exclude<Awaited<ReturnType<typeof insertCreatorAssessment>>, 'creator_required'>;

export function toCreatorAssessment(row: CreatorAssessmentRow, summary: string): CreatorAssessment {
  return toScoredResult<CreatorTraits, CreatorType>(row, summary);
}

const summaryColumns = [
  'bots.id',
  'bots.name',
  'bots.model',
  'bots.type',
  'bots.creator_user_id',
  'bots.created_at',
  'bots.mode',
] as const;

/** The bots a creator claimed, oldest claim first. */
export async function listClaimedBots(db: Db, userId: string) {
  return db
    .selectFrom('bots')
    .select(summaryColumns)
    .where('creator_user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * A page of the signed-in creator's bots, claimed and pending (unclaimed bots that named their
 * handle) together, oldest registration first, after the keyset `after` ([created_at, id]).
 */
export async function listBotsOfCreator(
  db: Db,
  userId: string,
  handle: string | null,
  limit: number,
  after: CursorKey | undefined,
) {
  let query = db
    .selectFrom('bots')
    .select(summaryColumns)
    .where((eb) =>
      handle === null
        ? eb('creator_user_id', '=', userId)
        : eb.or([
            eb('creator_user_id', '=', userId),
            eb.and([eb('creator_user_id', 'is', null), eb('requested_creator_handle', '=', handle)]),
          ]),
    );
  if (after) query = query.where(afterKey(['bots.created_at', 'bots.id'], 'asc', after));
  return query.orderBy('bots.created_at').orderBy('bots.id').limit(limit).execute();
}

type SummaryRow = Awaited<ReturnType<typeof listClaimedBots>>[number];

/** A creator's own bots page oldest first, ties by id. */
export const myBotsKeyset: Keyset<SummaryRow> = creationOrder('my-bots');

export function toBotSummary(row: SummaryRow): BotSummary {
  return {
    id: row.id,
    name: row.name,
    model: row.model,
    type: row.type,
    verified: row.creator_user_id !== null,
  };
}

export type ClaimOutcome = { bot: BotWithCreator } | { error: 'not_found' | 'claimed' | 'creator_required' };

/**
 * Gives the bot with this claim code to the creator, if nobody has claimed it yet. The foreign key
 * decides whether the creator still exists (their account may be deleted while they claim).
 */
export async function claimBotByCode(db: Db, userId: string, claimCodeHash: string): Promise<ClaimOutcome> {
  let claimed: { id: string } | undefined;
  try {
    claimed = await db
      .updateTable('bots')
      .set({ creator_user_id: userId, claimed_at: sql`now()` })
      .where('claim_code_hash', '=', claimCodeHash)
      .where('creator_user_id', 'is', null)
      .returning('id')
      .executeTakeFirst();
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'bots_creator_user_id_fkey')
      return { error: 'creator_required' };
    throw error;
  }
  if (claimed) return { bot: (await findBotById(db, claimed.id))! };
  const exists = await db
    .selectFrom('bots')
    .select('id')
    .where('claim_code_hash', '=', claimCodeHash)
    .executeTakeFirst();
  return { error: exists ? 'claimed' : 'not_found' };
}
