// A corpus of secrets of every kind the spec's detectors know, made here from their documented
// shapes (never real), and of near misses that must pass: what the scanner's tests read.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { generateApiKey } from '../../src/platform/admission/secrets.js';
import type { SecretKind } from '../../src/platform/spec/schemas.js';
import { withBrokenChecksum } from './bots.js';

export const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** `length` characters of `alphabet`, deterministic enough for a corpus. */
export const run = (length: number, alphabet = alnum) =>
  Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');

export const secrets: Array<[SecretKind, string]> = [
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

export const nearMisses = [
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
