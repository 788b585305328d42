// The session store's SQL: one row per session, keyed by the hash of its id (never the id itself),
// with its data, its expiry and the user it signed in.
import type { Db } from '../db/schema.js';

export async function saveSession(
  db: Db,
  session: { idHash: string; data: string; expiresAt: Date; userId: string | null },
): Promise<void> {
  const { idHash, data, expiresAt, userId } = session;
  await db
    .insertInto('sessions')
    .values({ id_hash: idHash, data, expires_at: expiresAt, user_id: userId })
    .onConflict((oc) => oc.column('id_hash').doUpdateSet({ data, expires_at: expiresAt, user_id: userId }))
    .execute();
}

/** A session's stored data, unless it has expired by `now`. */
export async function findSessionData(db: Db, idHash: string, now: Date): Promise<unknown> {
  const row = await db
    .selectFrom('sessions')
    .select('data')
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.data;
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/** Ends every session of a user (signing out everywhere); returns how many there were. */
export async function deleteSessionsOfUser(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes expired sessions; returns how many went. */
export async function pruneExpiredSessions(db: Db, now: Date): Promise<number> {
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(sessions.numDeletedRows);
}
