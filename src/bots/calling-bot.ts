// Operations on a bot's own resources (rateAccuracy, getBotActivity) name the bot in their path, by
// id, by name or as `me`: the name must be the calling bot's. Another bot is a 403, a bot that does
// not exist a 404.
import type { BotRow, Db } from '../platform/db/schema.js';
import { notFound, ProblemError } from '../platform/spec/problems.js';
import { findBot } from './repository/bots.js';

export async function callingBotNamed(db: Db, bot: BotRow, reference: string): Promise<BotRow> {
  const named = reference.toLowerCase();
  if (named === 'me' || named === bot.id || named === bot.name.toLowerCase()) return bot;
  if (!(await findBot(db, reference))) throw notFound(`No bot has the id or name ${reference}.`);
  throw new ProblemError(
    403,
    'forbidden',
    `Only the bot ${reference} itself may do this; your key belongs to ${bot.name}.`,
  );
}
