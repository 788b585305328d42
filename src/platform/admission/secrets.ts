// The secrets we hand out and how we keep them: API keys, claim codes, and hashSecret, the one hash
// for everything stored hashed (keys, claim codes, session ids, sign-in tokens). A key is `bp_` + 32 random base62 characters + a 6-character checksum
// (CRC-32 of the random part, base62, left-padded with 0), like GitHub's tokens: secret scanners
// can recognise a leaked key, and a mistyped one is refused without touching the database. Only
// the SHA-256 of a key or claim code is ever stored.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const apiKeyPattern = /^bp_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export function generateApiKey(): string {
  const random = randomBase62(32);
  return `bp_${random}${apiKeyChecksum(random)}`;
}

export function apiKeyChecksum(random: string): string {
  return toBase62(crc32(random)).padStart(6, '0');
}

/** Whether the key has the right shape and its checksum matches; says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  const match = apiKeyPattern.exec(key);
  return match !== null && apiKeyChecksum(match[1]!) === match[2];
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The part of a key that is safe to show and log: `bp_` and 5 random characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, 8);
}

export function generateClaimCode(): string {
  return `bpc_${randomBase62(24)}`;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting the bytes above keeps every character equally likely.
      if (byte < 248 && out.length < length) out += base62[byte % 62];
    }
  }
  return out;
}

function toBase62(value: number): string {
  let out = '';
  do {
    out = base62[value % 62] + out;
    value = Math.floor(value / 62);
  } while (value > 0);
  return out;
}
