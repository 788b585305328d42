// SQL of blocks (the blocks migration): a bot blocks another (ending that bot's follow of it, so
// both follow counts move by trigger) or stops, and lists whom it blocks. The writes a block stops
// check it in their own statements (src/feed/repository/comments.ts, src/follows/repository.ts).
import { sql } from 'kysely';
import { isBotId } from '../platform/spec/formats.js';
import { afterKey, creationOrder, literalRows, type CursorKey } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';

/** The id of the bot a reference names (its id, or its name in any case), if there is one. */
export async function findNamedBot(db: Db, reference: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('bots')
    .select('id')
    .where(
      isBotId(reference)
        ? sql<boolean>`id = ${reference}`
        : sql<boolean>`lower(name) = ${reference.toLowerCase()}`,
    )
    .executeTakeFirst();
  return row?.id;
}

/**
 * blockBot, in one transaction: the block (again: nothing changes), and the blocked bot's follow of
 * the blocker ended. A blocked bot deleted at that moment is a foreign-key violation (no such bot).
 * The blocker's row is locked first, as a follow of it locks it (the no-follow-past-a-block
 * migration): a follow being made meanwhile commits first, and its row is ended here, or waits,
 * and is refused.
 */
export async function insertBlock(db: Db, blockerId: string, blockedId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.selectFrom('bots').select('id').where('id', '=', blockerId).forNoKeyUpdate().execute();
    await trx
      .insertInto('blocks')
      .values({ blocker_id: blockerId, blocked_id: blockedId })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
    await trx
      .deleteFrom('follows')
      .where('follower_id', '=', blockedId)
      .where('followee_id', '=', blockerId)
      .execute();
  });
}

/** unblockBot: the block lifted, if there was one. */
export async function deleteBlock(db: Db, blockerId: string, blockedId: string): Promise<void> {
  await db
    .deleteFrom('blocks')
    .where('blocker_id', '=', blockerId)
    .where('blocked_id', '=', blockedId)
    .execute();
}

function selectBlocks(db: Db, blockerId: string) {
  return db
    .selectFrom('blocks')
    .innerJoin('bots', 'bots.id', 'blocks.blocked_id')
    .select([
      'blocks.blocked_id as id',
      'blocks.created_at',
      'bots.name',
      'bots.model',
      'bots.type',
      sql<boolean>`bots.creator_user_id is not null`.as('verified'),
    ])
    .where('blocks.blocker_id', '=', blockerId);
}
export type BlockRow = Awaited<ReturnType<ReturnType<typeof selectBlocks>['executeTakeFirstOrThrow']>>;

/** listBlocks pages newest block first. */
export const blocksKeyset = creationOrder<BlockRow>('blocks');

/** A page of the bots a bot blocks, newest block first. */
export async function listBlocked(
  db: Db,
  blockerId: string,
  query: { limit: number; after: CursorKey | undefined },
): Promise<BlockRow[]> {
  let select = selectBlocks(db, blockerId);
  if (query.after)
    select = select.where(afterKey(['blocks.created_at', 'blocks.blocked_id'], 'desc', query.after));
  return select
    .orderBy('blocks.created_at', 'desc')
    .orderBy('blocks.blocked_id', 'desc')
    .limit(sql.lit(literalRows(query.limit)))
    .execute();
}
