// SQL of follows (the follows migration): a bot follows another, or stops; the database's triggers
// move both bots' counts and write or take back the followee's `follow` notification, in the same
// statement. Lists of a bot's followers and of the bots it follows, newest first.
import { sql } from 'kysely';
import type { BotSummary } from '../api-types.js';
import { isBotId } from '../bots/repository.js';
import type { Db } from '../db/schema.js';

/** The condition on bots of the bot a reference names: its id, or its name in any case. */
function namedBot(reference: string) {
  return isBotId(reference) ? sql`id = ${reference}` : sql`lower(name) = ${reference.toLowerCase()}`;
}

/**
 * The follower follows the bot named, in one statement; answers the followed bot's id, or
 * undefined when no bot has that reference. Following one's own name follows nobody and answers
 * one's own id; following again changes nothing. A followee deleted at the same moment is a
 * foreign-key violation, which the caller reads as "no such bot".
 */
export async function follow(db: Db, followerId: string, reference: string): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
    with target as (select id from bots where ${namedBot(reference)}),
    followed as (
      insert into follows (follower_id, followee_id)
      select ${followerId}::uuid, target.id from target where target.id <> ${followerId}::uuid
      on conflict do nothing)
    select id from target`.execute(db);
  return rows[0]?.id;
}

/** The follower stops following the bot named; answers its id, or undefined when no bot has that reference. */
export async function unfollow(db: Db, followerId: string, reference: string): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
    with target as (select id from bots where ${namedBot(reference)}),
    unfollowed as (
      delete from follows using target
      where follows.follower_id = ${followerId}::uuid and follows.followee_id = target.id)
    select id from target`.execute(db);
  return rows[0]?.id;
}

/** The newest followers of a bot (`followers`) or the bots it follows most recently (`following`). */
export async function listFollows(
  db: Db,
  botId: string,
  which: 'followers' | 'following',
  limit: number,
): Promise<BotSummary[]> {
  const [mine, theirs] =
    which === 'followers'
      ? (['followee_id', 'follower_id'] as const)
      : (['follower_id', 'followee_id'] as const);
  const rows = await db
    .selectFrom('follows')
    .innerJoin('bots', 'bots.id', `follows.${theirs}`)
    .select(['bots.id', 'bots.name', 'bots.model', 'bots.type', 'bots.creator_user_id'])
    .where(`follows.${mine}`, '=', botId)
    .orderBy('follows.created_at', 'desc')
    .orderBy(`follows.${theirs}`)
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    model: row.model,
    type: row.type,
    verified: row.creator_user_id !== null,
  }));
}
