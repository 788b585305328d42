// The keys that sign identity tokens, as one instance holds them: the current period's signing key
// (made by whichever instance needs it first, encrypted under IDENTITY_KEY_SECRET, then shared by
// every instance with that secret through the database; kept unsealed in memory while the database
// still names it) and the published key set, kept in memory and read again when the period turns,
// every few minutes, or when a token names a key this instance has not seen. See README.md.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '../platform/db/schema.js';
import type { IdentitySettings } from '../config.js';
import { entityTag } from '../platform/http/conditional-get.js';
import {
  deleteRetiredSigningKeys,
  findSigningKey,
  insertSigningKey,
  publishedPublicKeys,
  type SigningKeyRow,
} from './repository.js';

/** How long a token is valid. */
export const tokenLifetimeMs = 60 * 60 * 1000;
/** How much clock difference between us and a verifier a published key allows for. */
const clockSkewMs = 5 * 60 * 1000;
/** The published set is read again at least this often (another secret's keys, removals). */
const keySetRefreshMs = 5 * 60 * 1000;
/** A token naming an unknown `kid` reloads the set at most this often (a forged kid costs nothing). */
const unknownKidReloadMs = 10 * 1000;
/**
 * A period's key is made and published this long before it first signs, so that a verifier holding
 * a key set up to five minutes old (its max-age), or an instance whose clock is behind, has it.
 */
export const announceMs = 60 * 60 * 1000;

export const signingAlgorithm = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  periodStart: number;
  signsUntil: number;
}

export interface PublishedKeySet {
  keys: JWK[];
  /** The weak ETag of the set as it is served. */
  etag: string;
}

export interface KeyRing {
  /** Where the database keeps the key that signs at `now`: its period and this secret's fingerprint. */
  locate(now: Date): { periodStart: Date; secretFingerprint: string };
  /**
   * The key that signs at `now`; made (and stored) if no instance has made it yet. `storedKid`: the
   * kid the database names for it, when the caller just read it (no need to ask again).
   */
  signingKey(now: Date, storedKid?: string | null): Promise<SigningKey>;
  /** The public keys to publish at `now`, the current signing key's always among them. */
  publishedKeys(now: Date): Promise<PublishedKeySet>;
  /** The published keys once more from the database, when a token names a kid not among them. */
  reloadForUnknownKid(now: Date): Promise<PublishedKeySet>;
}

/** A new key pair for a period, its private half sealed under the key secret. */
async function newSigningKey(
  periodStart: number,
  periodMs: number,
  fingerprint: string,
  seal: (text: string) => string,
): Promise<SigningKeyRow> {
  const { publicKey, privateKey } = await generateKeyPair(signingAlgorithm, { extractable: true });
  const day = new Date(periodStart).toISOString().slice(0, 10);
  const kid = `ik_${day}_${randomBytes(4).toString('hex')}`;
  const signsUntil = periodStart + periodMs;
  return {
    kid,
    secret_fingerprint: fingerprint,
    period_start: new Date(periodStart),
    signs_until: new Date(signsUntil),
    published_until: new Date(signsUntil + tokenLifetimeMs + clockSkewMs),
    public_jwk: {
      ...(await exportJWK(publicKey)),
      kid,
      alg: signingAlgorithm,
      use: 'sig',
    } as unknown as Record<string, string>,
    private_key_sealed: seal(JSON.stringify(await exportJWK(privateKey))),
  };
}

/** Private keys sealed (AES-256-GCM) under a key derived from IDENTITY_KEY_SECRET, and unsealed. */
function sealer(keySecret: string) {
  const sealingKey = createHash('sha256')
    .update('bot-platform identity signing keys\0')
    .update(keySecret)
    .digest();
  return {
    seal: (text: string): string => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealingKey, iv);
      const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
    },
    unseal: (text: string): string => {
      const [iv, tag, sealed] = text.split('.').map((part) => Buffer.from(part, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', sealingKey, iv!);
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
    },
  };
}

export function createKeyRing(db: Db, settings: IdentitySettings): KeyRing {
  const { seal, unseal } = sealer(settings.keySecret);
  const fingerprint = createHash('sha256')
    .update('bot-platform identity key secret\0')
    .update(settings.keySecret)
    .digest('hex')
    .slice(0, 16);
  const periodMs = settings.keyDays * 24 * 60 * 60 * 1000;
  let current: SigningKey | undefined;
  let published: (PublishedKeySet & { loadedAt: number; stage: string }) | undefined;
  let making: { periodStart: number; key: Promise<SigningKey> } | undefined;
  /** The next period whose key this instance has made sure of, in the last hour of this one. */
  let announced: number | undefined;

  const periodStartOf = (now: Date) => Math.floor(now.getTime() / periodMs) * periodMs;
  /** Which keys a set loaded at `now` holds: this period's, and the next one's in the last hour. */
  const stageOf = (now: Date) =>
    `${periodStartOf(now)}:${periodStartOf(new Date(now.getTime() + announceMs))}`;

  /** In the last hour of a period, the next period's key exists (made by this instance or another). */
  async function announceNext(now: Date): Promise<void> {
    const next = periodStartOf(new Date(now.getTime() + announceMs));
    if (next === periodStartOf(now) || announced === next) return;
    if (!(await findSigningKey(db, new Date(next), fingerprint))) {
      await insertSigningKey(db, await newSigningKey(next, periodMs, fingerprint, seal));
      await deleteRetiredSigningKeys(db, now);
      published = undefined; // the set gains it
    }
    announced = next;
  }

  /** The period's key as stored, its private half unsealed. */
  async function fromRow(row: SigningKeyRow, periodStart: number): Promise<SigningKey> {
    const jwk = JSON.parse(unseal(row.private_key_sealed)) as JWK;
    return {
      kid: row.kid,
      privateKey: (await importJWK(jwk, signingAlgorithm)) as CryptoKey,
      periodStart,
      signsUntil: row.signs_until.getTime(),
    };
  }

  /** A new key for the period, unless another instance stored one first (then that one). */
  async function made(periodStart: number): Promise<SigningKey> {
    await insertSigningKey(db, await newSigningKey(periodStart, periodMs, fingerprint, seal));
    await deleteRetiredSigningKeys(db, new Date(periodStart));
    published = undefined; // the set gains this key
    return fromRow((await findSigningKey(db, new Date(periodStart), fingerprint))!, periodStart);
  }

  async function signingKey(now: Date, storedKid?: string | null): Promise<SigningKey> {
    const periodStart = periodStartOf(now);
    await announceNext(now);
    // Asked of the database every time (one indexed row, or the caller's own read of it), so that
    // this instance never signs with a key the others do not publish, whatever happened to the
    // table (a restore, a reset).
    if (storedKid && current?.kid === storedKid && current.periodStart === periodStart) return current;
    const row = await findSigningKey(db, new Date(periodStart), fingerprint);
    if (row && current?.kid === row.kid) return current;
    // One unsealing or one new key per instance and period, however many requests arrive at once.
    if (making?.periodStart !== periodStart) {
      const key = (row ? fromRow(row, periodStart) : made(periodStart)).finally(() => {
        if (making?.key === key) making = undefined;
      });
      making = { periodStart, key };
    }
    const key = await making.key;
    current = key;
    return key;
  }

  async function load(now: Date): Promise<PublishedKeySet> {
    await signingKey(now);
    const keys = (await publishedPublicKeys(db, now, new Date(now.getTime() + announceMs))) as JWK[];
    const etag = entityTag(JSON.stringify({ keys }));
    published = { keys, etag, loadedAt: now.getTime(), stage: stageOf(now) };
    return published;
  }

  return {
    locate: (now) => ({ periodStart: new Date(periodStartOf(now)), secretFingerprint: fingerprint }),
    signingKey,
    async publishedKeys(now) {
      const fresh =
        published &&
        published.stage === stageOf(now) &&
        now.getTime() - published.loadedAt < keySetRefreshMs &&
        now.getTime() >= published.loadedAt;
      return fresh ? published! : load(now);
    },
    async reloadForUnknownKid(now) {
      if (published && now.getTime() - published.loadedAt < unknownKidReloadMs) return published;
      return load(now);
    },
  };
}
