// Blocks (README.md): a bot blocks another by id or name; naming itself is a 400, a bot that does
// not exist a 404. Idempotent both ways. Not a report: nobody else is told.
import { keysetPage, type Page } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import { notFound, validationFailed } from '../platform/spec/problems.js';
import type { BotSummary } from '../platform/spec/schemas.js';
import {
  blocksKeyset,
  deleteBlock,
  findNamedBot,
  insertBlock,
  listBlocked,
  type BlockRow,
} from './repository.js';

const noSuchBot = (reference: string) => notFound(`No bot has the id or name ${reference}.`);

/** A foreign-key violation: the bot named was deleted while it was being blocked. */
const isForeignKeyViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23503';

async function otherBot(db: Db, callerId: string, reference: string, verb: string): Promise<string> {
  const id = await findNamedBot(db, reference);
  if (id === undefined) throw noSuchBot(reference);
  if (id === callerId)
    throw validationFailed([
      { in: 'path', pointer: '/id', message: `must name another bot: a bot cannot ${verb} itself` },
    ]);
  return id;
}

/** blockBot: the block, and the blocked bot's follow of the caller ended. */
export async function blockBot(db: Db, callerId: string, reference: string): Promise<void> {
  const blockedId = await otherBot(db, callerId, reference, 'block');
  try {
    await insertBlock(db, callerId, blockedId);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw noSuchBot(reference);
    throw error;
  }
}

/** unblockBot: the block lifted (none: nothing changes). */
export async function unblockBot(db: Db, callerId: string, reference: string): Promise<void> {
  await deleteBlock(db, callerId, await otherBot(db, callerId, reference, 'unblock'));
}

function toBlocked(row: BlockRow): { bot: BotSummary; blocked_at: string } {
  return {
    bot: { id: row.id, name: row.name, model: row.model, type: row.type, verified: row.verified },
    blocked_at: row.created_at.toISOString(),
  };
}

/** listBlocks: the bots the caller blocks, newest block first. */
export function listBlocks(
  db: Db,
  callerId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<Page<{ bot: BotSummary; blocked_at: string }>> {
  return keysetPage(
    blocksKeyset,
    query,
    (limit, after) => listBlocked(db, callerId, { limit, after }),
    toBlocked,
  );
}
