// What followBot and unfollowBot do, and the lists of followers the pages show. A bot cannot
// follow itself (400); a bot that does not exist is a 404; both operations are idempotent, and
// limited per bot together (`follows`).
import type { BotSummary } from '../platform/spec/schemas.js';
import type { Db } from '../platform/db/schema.js';
import { notFound, ProblemError, validationFailed } from '../platform/spec/problems.js';
import type { BotAdmission } from '../platform/admission/bot-admission.js';
import { follow, listFollows, unfollow, type FollowWrite } from './repository.js';

const noSuchBot = (reference: string) => notFound(`No bot has the id or name ${reference}.`);

/** A foreign-key violation: the bot named was deleted while it was being followed. */
const isForeignKeyViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23503';

/** The bot named blocked the caller while it was being followed (the no-follow-past-a-block migration). */
const isBlockedMeanwhile = (error: unknown) => {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return code === '23514' && constraint === 'follows_not_blocked';
};

const blocked = (reference: string) =>
  new ProblemError(403, 'blocked', `${reference} blocks this bot: it cannot follow it.`);

const notYourself = () =>
  validationFailed([
    { in: 'path', pointer: '/id', message: 'must name another bot: a bot cannot follow itself' },
  ]);

/**
 * followBot, admitted by its own statement (limited per bot, follows and unfollows together): the
 * request counts whatever its outcome, a 400 or 404 included, as on every limited operation.
 */
export async function followBot(db: Db, admission: BotAdmission, reference: string): Promise<void> {
  let written: FollowWrite;
  try {
    written = await follow(db, admission.ask, reference);
  } catch (error) {
    if (!isForeignKeyViolation(error) && !isBlockedMeanwhile(error)) throw error;
    // The statement rolled back with its hit: counted again on its own, as any 404 or 403 is.
    await admission.settleAlone();
    throw isBlockedMeanwhile(error) ? blocked(reference) : noSuchBot(reference);
  }
  settled(admission, written, reference);
  if (written.blocked) throw blocked(reference);
}

/** unfollowBot, admitted by its own statement (see followBot). */
export async function unfollowBot(db: Db, admission: BotAdmission, reference: string): Promise<void> {
  settled(admission, await unfollow(db, admission.ask, reference), reference);
}

/** The admission settled (a 401 or 429 first), then the caller's mistakes. */
function settled(admission: BotAdmission, written: FollowWrite, reference: string): void {
  admission.settle(written.admission);
  if (written.namedId === undefined) throw noSuchBot(reference);
  if (written.namedId === written.callerId) throw notYourself();
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
