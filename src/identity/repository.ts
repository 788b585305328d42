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

/** createIdentityToken's admission: the limit's answer, and the calling bot (none for an unknown key). */
export async function admitIdentityToken(
  db: Db,
  ask: AdmissionAsk,
): Promise<{ admission: AdmissionAnswer; botId: string | undefined }> {
  const row = await withAdmission(db, admissionShape(ask), ask)
    .selectFrom('admitted')
    .select(admissionColumns)
    .select(durableOnlyIfAdmitted)
    .select('admitted.id as bot_id')
    .executeTakeFirst();
  return { admission: admissionAnswer(row), botId: row?.bot_id };
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
