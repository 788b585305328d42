// SQL of identity tokens: the signing keys (the identity-signing-keys migration) and the one
// statement that admits createIdentityToken (counted per bot like every limited action; a token
// itself is never stored).
import { sql } from 'kysely';
import {
  admissionAnswer,
  admissionColumns,
  admissionShape,
  durableOnlyIfAdmitted,
  withAdmission,
} from '../platform/admission/repository.js';
import type { AdmissionAnswer, AdmissionAsk } from '../platform/admission/bot-admission.js';
import type { Db, IdentitySigningKeysTable } from '../platform/db/schema.js';

export type SigningKeyRow = Omit<IdentitySigningKeysTable, 'created_at'>;

/** What a token says of its bot, as the database has it when the token is issued. */
export interface TokenSubject {
  id: string;
  name: string;
  type: string | null;
  verified: boolean;
  karma: number;
  creator: string | null;
}

/**
 * createIdentityToken's one statement: the caller's admission, what the token says of the bot if it
 * admits, and the kid of the period's signing key as the database names it now (see key-ring.ts).
 */
export async function admitIdentityToken(
  db: Db,
  ask: AdmissionAsk,
  signingKey: { periodStart: Date; secretFingerprint: string },
): Promise<{ admission: AdmissionAnswer; subject: TokenSubject | undefined; kid: string | null }> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .selectFrom('admitted')
    .leftJoin('bots', (join) => join.onRef('bots.id', '=', 'admitted.id').on('admitted.admits', '=', true))
    .select(admissionColumns)
    .select(durableOnlyIfAdmitted)
    .select(['bots.id', 'bots.name', 'bots.type', 'bots.karma', 'bots.creator_user_id'])
    .select((eb) => [
      eb
        .selectFrom('creators')
        .select('creators.handle')
        .whereRef('creators.user_id', '=', 'bots.creator_user_id')
        .as('creator'),
      eb
        .selectFrom('identity_signing_keys')
        .select('identity_signing_keys.kid')
        .where('identity_signing_keys.period_start', '=', signingKey.periodStart)
        .where('identity_signing_keys.secret_fingerprint', '=', signingKey.secretFingerprint)
        .as('kid'),
    ])
    .executeTakeFirst();
  const subject =
    row?.id && row.name
      ? {
          id: row.id,
          name: row.name,
          type: row.type,
          verified: row.creator_user_id !== null,
          karma: row.karma ?? 0,
          creator: row.creator ?? null,
        }
      : undefined;
  return { admission: admissionAnswer(row), subject, kid: row?.kid ?? null };
}

/** The key made for a signing period under one secret, if any instance made it. */
export async function findSigningKey(
  db: Db,
  periodStart: Date,
  secretFingerprint: string,
): Promise<SigningKeyRow | undefined> {
  return db
    .selectFrom('identity_signing_keys')
    .select([
      'kid',
      'secret_fingerprint',
      'period_start',
      'signs_until',
      'published_until',
      'public_jwk',
      'private_key_sealed',
    ])
    .where('period_start', '=', periodStart)
    .where('secret_fingerprint', '=', secretFingerprint)
    .executeTakeFirst();
}

/** Stores a period's key unless another instance stored one first (then that one is everyone's). */
export async function insertSigningKey(db: Db, key: SigningKeyRow): Promise<void> {
  await db
    .insertInto('identity_signing_keys')
    .values({ ...key, public_jwk: JSON.stringify(key.public_jwk) as never })
    .onConflict((conflict) => conflict.columns(['period_start', 'secret_fingerprint']).doNothing())
    .execute();
}

/**
 * The public keys to publish at `now`: each from `announcedBy` before it signs until the last token
 * it signed has expired, newest first.
 */
export async function publishedPublicKeys(
  db: Db,
  now: Date,
  announcedBy: Date,
): Promise<Array<Record<string, string>>> {
  const rows = await db
    .selectFrom('identity_signing_keys')
    .select('public_jwk')
    .where('published_until', '>', now)
    .where('period_start', '<=', announcedBy)
    .orderBy('period_start', 'desc')
    .orderBy('kid')
    .execute();
  return rows.map((row) => row.public_jwk);
}

/** Keys no longer published are of no use to anyone: removed by the signing-key upkeep. */
export async function deleteRetiredSigningKeys(db: Db, now: Date): Promise<void> {
  await db
    .deleteFrom('identity_signing_keys')
    .where('published_until', '<', sql<Date>`${now}::timestamptz - interval '1 day'`)
    .execute();
}
