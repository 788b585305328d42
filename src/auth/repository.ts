// SQL for humans signing in: users, the provider identities that lead to them, one-time e-mail
// sign-in tokens, and sessions (one row per session, keyed by the hash of its id). A token is redeemed by one atomic UPDATE, so two clicks on one link cannot both
// sign in.
import { sql } from 'kysely';
import type { Db } from '../db/schema.js';

export async function insertSignInToken(
  db: Db,
  token: { tokenHash: string; email: string; next: string; expiresAt: Date },
) {
  await db
    .insertInto('email_sign_in_tokens')
    .values({
      token_hash: token.tokenHash,
      email: token.email,
      next: token.next,
      expires_at: token.expiresAt,
    })
    .execute();
}

/** Marks the token used and returns what it was for; undefined when unknown, used or expired at `now`. */
export async function redeemSignInToken(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<{ email: string; next: string } | undefined> {
  return db
    .updateTable('email_sign_in_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['email', 'next'])
    .executeTakeFirst();
}

/** The user with this (verified) address, created if there is none. */
export async function userIdForEmail(db: Db, email: string): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    insert into users (email) values (${email})
    on conflict (lower(email)) where email is not null do update set email = users.email
    returning id`.execute(db);
  return rows[0]!.id;
}

/**
 * The user a provider identity belongs to: the one it is linked to; else the user with the
 * provider's verified address; else a new user. The identity is linked in the same transaction.
 */
export async function userIdForIdentity(
  db: Db,
  identity: { provider: string; subject: string; verifiedEmail: string | undefined },
): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const linked = await linkedUserId(trx, identity);
    if (linked) return linked;
    const userId = identity.verifiedEmail
      ? await userIdForEmail(trx, identity.verifiedEmail)
      : (await trx.insertInto('users').values({ email: null }).returning('id').executeTakeFirstOrThrow()).id;
    const inserted = await trx
      .insertInto('user_identities')
      .values({ provider: identity.provider, subject: identity.subject, user_id: userId })
      .onConflict((oc) => oc.columns(['provider', 'subject']).doNothing())
      .returning('user_id')
      .executeTakeFirst();
    // A concurrent first sign-in of the same identity may have linked it meanwhile: theirs stands.
    return inserted?.user_id ?? (await linkedUserId(trx, identity))!;
  });
}

async function linkedUserId(
  db: Db,
  identity: { provider: string; subject: string },
): Promise<string | undefined> {
  const row = await db
    .selectFrom('user_identities')
    .select('user_id')
    .where('provider', '=', identity.provider)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  return row?.user_id;
}

export async function findUser(db: Db, id: string) {
  return db.selectFrom('users').select(['id', 'email']).where('id', '=', id).executeTakeFirst();
}

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

/** Deletes expired sessions and sign-in tokens; returns how many rows went. */
export async function pruneExpiredSessions(db: Db, now: Date): Promise<number> {
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  const tokens = await db
    .deleteFrom('email_sign_in_tokens')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(tokens.numDeletedRows);
}
