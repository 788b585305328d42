// SQL for humans signing in: users, the provider identities that lead to them, and one-time e-mail
// sign-in tokens. A token is redeemed by one atomic UPDATE, so two clicks on one link cannot both
// sign in. (The sessions a sign-in starts are platform/sessions/'s.)
import { sql } from 'kysely';
import type { Db } from '../platform/db/schema.js';

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

/** Deletes expired sign-in tokens, used or not; returns how many went (with the sessions' pruning). */
export async function pruneExpiredSignInTokens(db: Db, now: Date): Promise<number> {
  const tokens = await db
    .deleteFrom('email_sign_in_tokens')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(tokens.numDeletedRows);
}
