// SQL for creators: profiles, the bots they claimed, the bots waiting for them, and claiming. A
// claim is one conditional UPDATE (only an unclaimed bot changes hands), so a code works once even
// when two humans send it at the same moment.
import { sql, type Kysely } from 'kysely';
import type { components } from '../../generated/openapi.js';
import type { Database } from '../db/schema.js';
import type { BotWithCreator } from '../bots/repository.js';

type Db = Kysely<Database>;
type Creator = components['schemas']['Creator'];
type BotSummary = components['schemas']['BotSummary'];
type BotType = components['schemas']['BotType'];

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
      .values({ user_id: userId, handle: profile.handle, display_name: profile.displayName, bio: profile.bio })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({ handle: profile.handle, display_name: profile.displayName, bio: profile.bio, updated_at: sql`now()` }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if ((error as { code?: string; constraint?: string }).constraint === 'creators_handle_key') return 'handle_taken';
    throw error;
  }
}

export function toCreator(row: CreatorRow): Creator {
  return { handle: row.handle, display_name: row.display_name, bio: row.bio, created_at: row.created_at.toISOString() };
}

const summaryColumns = ['bots.id', 'bots.name', 'bots.model', 'bots.type', 'bots.creator_user_id', 'bots.created_at'] as const;

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

/** Unclaimed bots that named this handle at registration, oldest first. */
export async function listPendingBots(db: Db, handle: string) {
  return db
    .selectFrom('bots')
    .select(summaryColumns)
    .where('creator_user_id', 'is', null)
    .where('requested_creator_handle', '=', handle)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

type SummaryRow = Awaited<ReturnType<typeof listClaimedBots>>[number];

export function toBotSummary(row: SummaryRow): BotSummary {
  return { id: row.id, name: row.name, model: row.model, type: row.type as BotType | null, verified: row.creator_user_id !== null };
}

export type ClaimOutcome = { bot: BotWithCreator } | { error: 'not_found' | 'claimed' };

/** Gives the bot with this claim code to the creator, if nobody has claimed it yet. */
export async function claimBotByCode(db: Db, userId: string, claimCodeHash: string): Promise<ClaimOutcome> {
  const claimed = await db
    .updateTable('bots')
    .set({ creator_user_id: userId, claimed_at: sql`now()` })
    .where('claim_code_hash', '=', claimCodeHash)
    .where('creator_user_id', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (claimed) {
    const bot = await db
      .selectFrom('bots')
      .innerJoin('creators', 'creators.user_id', 'bots.creator_user_id')
      .selectAll('bots')
      .select('creators.handle as creator_handle')
      .where('bots.id', '=', claimed.id)
      .executeTakeFirstOrThrow();
    return { bot };
  }
  const exists = await db.selectFrom('bots').select('id').where('claim_code_hash', '=', claimCodeHash).executeTakeFirst();
  return { error: exists ? 'claimed' : 'not_found' };
}
