// The detectors of openapi.yaml's x-secret-detectors, against a corpus of secrets of every kind and
// of near misses that must pass (a key of ours with a bad checksum, UUIDs, hashes, base64, prose
// that mentions a prefix). The secrets are made here from their documented shapes, never real.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { generateApiKey } from '../../../src/platform/admission/secrets.js';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import { secretScanner } from '../../../src/platform/secret-scanning/scanner.js';
import type { SecretKind } from '../../../src/platform/spec/schemas.js';
import { withBrokenChecksum } from '../../helpers/bots.js';

const spec = loadSpec();
const scanner = secretScanner(spec);
const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** `length` characters of `alphabet`, deterministic enough for a corpus. */
const run = (length: number, alphabet = alnum) =>
  Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');

const secrets: Array<[SecretKind, string]> = [
  ['bot_platform_api_key', generateApiKey()],
  ['aws_access_key_id', 'AKIAIOSFODNN7EXAMPLE'],
  ['aws_access_key_id', `ASIA${run(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`],
  ['github_token', `ghp_${run(36)}`],
  ['github_token', `gho_${run(36)}`],
  ['github_token', `ghs_${run(36)}`],
  ['github_token', `github_pat_${run(22)}_${run(59)}`],
  ['anthropic_api_key', `sk-ant-api03-${run(93, `${alnum}_-`)}AA`],
  ['openai_api_key', `sk-proj-${run(120, `${alnum}_-`)}`],
  ['openai_api_key', `sk-${run(48)}`],
  ['slack_token', `xoxb-123456789012-1234567890123-${run(24)}`],
  ['stripe_live_key', `sk_live_${run(99)}`],
  ['stripe_live_key', `rk_live_${run(24)}`],
  ['google_api_key', `AIza${run(35, `${alnum}_-`)}`],
  ['private_key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----'],
  ['private_key', '-----BEGIN OPENSSH PRIVATE KEY-----'],
  ['private_key', '-----BEGIN PRIVATE KEY-----'],
];

const nearMisses = [
  withBrokenChecksum(generateApiKey()),
  `bp_${run(30)}`,
  randomUUID(),
  createHash('sha256').update('x').digest('hex'),
  createHash('sha1').update('x').digest('hex'),
  randomBytes(96).toString('base64'),
  randomBytes(96).toString('base64url'),
  'Keys of that provider begin with sk- and are long; never post one.',
  'AKIA is how AWS access key ids begin, and ASIA for temporary ones.',
  'GitHub tokens start with ghp_ or github_pat_ and Anthropic keys with sk-ant-.',
  'sk-ant-api03-short',
  'sk-this-is-a-hyphenated-phrase-not-a-key',
  `sk_test_${run(24)}`,
  'AKIAshort and AKIA1234',
  'xoxb-not-a-token',
  '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqh\n-----END PUBLIC KEY-----',
  '-----BEGIN CERTIFICATE-----',
  `AIza${run(20)}`,
  'https://example.com/path?token=abc123',
];

describe('secret scanning: the detectors', () => {
  test('the spec names a detector for every kind it documents, and each kind once', () => {
    const detectors = (spec as unknown as { 'x-secret-detectors': Array<{ kind: string }> })[
      'x-secret-detectors'
    ];
    const kinds = (spec.components?.schemas?.SecretKind as { enum: string[] }).enum;
    assert.deepEqual([...new Set(detectors.map((d) => d.kind))].sort(), [...kinds].sort());
  });

  test('every secret of the corpus is found, alone and inside prose, as its kind', () => {
    for (const [kind, secret] of secrets) {
      assert.equal(scanner.scanText(secret)?.kind, kind, secret);
      const found = scanner.scanText(`Here is my config:\n  key = "${secret}",\nthanks!`);
      assert.equal(found?.kind, kind, secret);
      assert.ok(found && secret.includes(found.secret), `${kind}: the secret itself is what was found`);
    }
  });

  test('no near miss is taken for a secret', () => {
    for (const text of nearMisses) assert.equal(scanner.scanText(text), undefined, text);
  });

  test('a body is scanned in every string, and the finding names its field by JSON pointer', () => {
    const body = {
      title: 'Hello',
      body: 'Nothing here',
      tags: ['a', `AIza${run(35)}`],
      meta: { 'a/b': 'x' },
    };
    const found = scanner.scanBody(body);
    assert.deepEqual(found && { pointer: found.pointer, kind: found.kind }, {
      pointer: '/tags/1',
      kind: 'google_api_key',
    });
    assert.equal(scanner.scanBody({ n: 5, ok: true, none: null }), undefined);
  });
});
