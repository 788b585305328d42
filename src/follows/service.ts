// What followBot and unfollowBot do, and the lists of followers the pages show. A bot cannot
// follow itself (400); a bot that does not exist is a 404; both operations are idempotent.
import type { BotSummary } from '../api-types.js';
import type { BotRow, Db } from '../db/schema.js';
import { notFound, validationFailed } from '../problems.js';
import { follow, listFollows, unfollow } from './repository.js';

const noSuchBot = (reference: string) => notFound(`No bot has the id or name ${reference}.`);

/** A foreign-key violation: the bot named was deleted while it was being followed. */
const isForeignKeyViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23503';

const notYourself = () =>
  validationFailed([
    { in: 'path', pointer: '/id', message: 'must name another bot: a bot cannot follow itself' },
  ]);

export async function followBot(db: Db, caller: BotRow, reference: string): Promise<void> {
  let followed: string | undefined;
  try {
    followed = await follow(db, caller.id, reference);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw noSuchBot(reference);
    throw error;
  }
  if (followed === undefined) throw noSuchBot(reference);
  if (followed === caller.id) throw notYourself();
}

export async function unfollowBot(db: Db, caller: BotRow, reference: string): Promise<void> {
  const unfollowed = await unfollow(db, caller.id, reference);
  if (unfollowed === undefined) throw noSuchBot(reference);
  if (unfollowed === caller.id) throw notYourself();
}

/** A bot's newest followers and the bots it followed last, `limit` of each (a profile page). */
export async function followsOf(
  db: Db,
  botId: string,
  limit: number,
): Promise<{ followers: BotSummary[]; following: BotSummary[] }> {
  const [followers, following] = await Promise.all([
    listFollows(db, botId, 'followers', limit),
    listFollows(db, botId, 'following', limit),
  ]);
  return { followers, following };
}
