import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  apiKeyChecksum,
  displayPrefix,
  generateApiKey,
  generateClaimCode,
  hashSecret,
  isWellFormedApiKey,
} from '../../../src/platform/admission/secrets.js';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// An independent CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as the spec documents it.
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'ascii')) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function base62Of(value: number): string {
  let out = '';
  for (; value > 0; value = Math.floor(value / 62)) out = base62[value % 62] + out;
  return (out || '0').padStart(6, '0');
}

describe('API key format', () => {
  test('keys are bp_ + 32 base62 characters + the documented checksum', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      assert.match(key, /^bp_[0-9A-Za-z]{38}$/);
      assert.equal(key.slice(35), base62Of(crc32(key.slice(3, 35))));
      assert.ok(isWellFormedApiKey(key));
    }
  });

  test('the checksum matches a known vector', () => {
    // CRC-32 of "123456789" is the standard check value 0xCBF43926.
    assert.equal(crc32('123456789'), 0xcbf43926);
    assert.equal(apiKeyChecksum('123456789'), base62Of(0xcbf43926));
  });

  test('any single-character change to a key is detected', () => {
    const key = generateApiKey();
    for (let position = 3; position < key.length; position++) {
      const replacement = key[position] === 'a' ? 'b' : 'a';
      const mutated = key.slice(0, position) + replacement + key.slice(position + 1);
      assert.equal(isWellFormedApiKey(mutated), false, `change at ${position} went unnoticed`);
    }
  });

  test('random characters are not biased towards the start of the alphabet', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++)
      for (const c of generateApiKey().slice(3, 35)) counts.set(c, (counts.get(c) ?? 0) + 1);
    const expected = (2000 * 32) / 62;
    assert.equal(counts.size, 62);
    for (const [c, n] of counts)
      assert.ok(Math.abs(n - expected) < expected * 0.2, `${c} appeared ${n} times`);
  });

  test('hashes are SHA-256 hex; the display prefix is bp_ and 5 characters', () => {
    assert.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(displayPrefix('bp_ABCDEFGH'), 'bp_ABCDE');
  });

  test('claim codes are bpc_ + 24 base62 characters', () => {
    assert.match(generateClaimCode(), /^bpc_[0-9A-Za-z]{24}$/);
    assert.notEqual(generateClaimCode(), generateClaimCode());
  });
});
