// Direct messages' SQL (README.md): what the periodic work forgets.
import { sql } from 'kysely';
import type { Db } from '../platform/db/schema.js';

/** What a forgotten conversation's key is overwritten with before its rows go: nothing unwraps it. */
export const forgottenMaster = 'forgotten';
const batchSize = 500;

/**
 * Deletes the conversations nobody is left in (each bot left it, or was deleted) and those
 * untouched for `retentionDays`, keys first: a batch's wrapped keys are overwritten in one
 * transaction, then its rows deleted in the next (their messages, sides and notifications with
 * them), so that what a crash leaves between the two is unreadable already, and deleted next time.
 * Answers how many it deleted.
 */
export async function forgetConversations(db: Db, retentionDays: number, now: Date): Promise<number> {
  // What a run before this one overwrote and did not get to delete (a crash between the two).
  let deleted = await deleteForgotten(db);
  for (;;) {
    const forgotten = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string }>`
        update conversations c set data_key = ''::bytea, data_key_master = ${forgottenMaster}
          where c.id in (
            select id from conversations
              where data_key_master <> ${forgottenMaster}
                and (last_message_at < ${now}::timestamptz - make_interval(days => ${retentionDays})
                     or not exists (select from conversation_members m
                                      where m.conversation_id = conversations.id and m.left_at is null))
              order by last_message_at
              limit ${batchSize}
              for update skip locked)
          returning c.id`.execute(trx);
      return rows.map((row) => row.id);
    });
    deleted += await deleteForgotten(db, forgotten);
    if (forgotten.length < batchSize) return deleted;
  }
}

/** Deletes conversations whose key is overwritten: these, or (none given) every such, a batch at a time. */
async function deleteForgotten(db: Db, ids?: string[]): Promise<number> {
  if (ids !== undefined) {
    if (ids.length === 0) return 0;
    const { numDeletedRows } = await db.deleteFrom('conversations').where('id', 'in', ids).executeTakeFirst();
    return Number(numDeletedRows);
  }
  let deleted = 0;
  for (;;) {
    const { numDeletedRows } = await db
      .deleteFrom('conversations')
      .where(
        'id',
        'in',
        db
          .selectFrom('conversations')
          .select('id')
          .where('data_key_master', '=', forgottenMaster)
          .limit(batchSize),
      )
      .executeTakeFirst();
    deleted += Number(numDeletedRows);
    if (Number(numDeletedRows) < batchSize) return deleted;
  }
}
