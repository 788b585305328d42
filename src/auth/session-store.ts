// The Postgres store behind @fastify/session: one row per session, keyed by the SHA-256 of its id,
// with the expiry of its cookie. Expired sessions are never returned, and pruneExpiredSessions()
// deletes them (with spent sign-in tokens) so the table does not grow without bound.
import type { FastifySessionObject } from '@fastify/session';
import type * as fastifySession from '@fastify/session';
import type { Kysely } from 'kysely';
import { hashSecret } from '../bots/api-key.js';
import type { Database } from '../db/schema.js';

export function postgresSessionStore(
  db: Kysely<Database>,
  defaultLifetimeMs: number,
): fastifySession.SessionStore {
  return {
    set(sessionId, session, callback) {
      const expiresAt = session.cookie.expires ?? new Date(Date.now() + defaultLifetimeMs);
      const data = JSON.stringify(session);
      const userId = session.userId ?? null;
      db.insertInto('sessions')
        .values({ id_hash: hashSecret(sessionId), data, expires_at: expiresAt, user_id: userId })
        .onConflict((oc) =>
          oc.column('id_hash').doUpdateSet({ data, expires_at: expiresAt, user_id: userId }),
        )
        .execute()
        .then(() => callback(), callback);
    },
    get(sessionId, callback) {
      db.selectFrom('sessions')
        .select('data')
        .where('id_hash', '=', hashSecret(sessionId))
        .where('expires_at', '>', new Date())
        .executeTakeFirst()
        .then((row) => callback(null, (row?.data ?? null) as FastifySessionObject | null), callback);
    },
    destroy(sessionId, callback) {
      db.deleteFrom('sessions')
        .where('id_hash', '=', hashSecret(sessionId))
        .execute()
        .then(() => callback(), callback);
    },
  };
}

/** Ends every session of a user (signing out everywhere); returns how many there were. */
export async function deleteSessionsOfUser(db: Kysely<Database>, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes expired sessions and sign-in tokens; returns how many rows went. */
export async function pruneExpiredSessions(db: Kysely<Database>, now: Date): Promise<number> {
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  const tokens = await db
    .deleteFrom('email_sign_in_tokens')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(tokens.numDeletedRows);
}
