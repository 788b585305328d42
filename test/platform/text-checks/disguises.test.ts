// Secret scanning sees through disguise (issue 59): every secret of the corpus, of every kind, is
// found with an invisible character inside it (each of them), in fullwidth or look-alike letters,
// with a character percent-encoded or written as an HTML entity, with those layered, and split
// between a post's title and body. And it refuses secrets, not text: emoji joined by zero-width
// joiners, words with `bp` in them, a URL with `%5F`, prose in Cyrillic, Greek or fullwidth
// Japanese, HTML entities and soft hyphens in ordinary words all pass.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateApiKey } from '../../../src/platform/admission/secrets.js';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import { revealed } from '../../../src/platform/text-checks/reveal.js';
import { secretScanner } from '../../../src/platform/text-checks/secret-scanner.js';
import type { SecretKind } from '../../../src/platform/spec/schemas.js';
import { withBrokenChecksum } from '../../helpers/bots.js';
import { nearMisses, secrets } from '../../helpers/secrets.js';

const scanner = secretScanner(loadSpec());

/** Where a disguise goes: past the secret's first few characters (its prefix), inside it. */
const inside = (secret: string) => Math.min(5, secret.length - 2);
const insert = (secret: string, what: string) =>
  secret.slice(0, inside(secret)) + what + secret.slice(inside(secret));
/** The character a disguise encodes: the first `_` or `-` past the start, or the one at `inside`. */
const encodedAt = (secret: string) => {
  const separator = secret.slice(1).search(/[_-]/);
  return separator >= 0 ? separator + 1 : inside(secret);
};
const encode = (secret: string, as: (char: string) => string) => {
  const at = encodedAt(secret);
  return secret.slice(0, at) + as(secret[at]!) + secret.slice(at + 1);
};
const hex = (char: string) => char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');

const cyrillic: Record<string, string> = {
  a: 'а',
  c: 'с',
  e: 'е',
  o: 'о',
  p: 'р',
  x: 'х',
  y: 'у',
  A: 'А',
  B: 'В',
  C: 'С',
  E: 'Е',
  H: 'Н',
  I: 'І',
  K: 'К',
  M: 'М',
  O: 'О',
  P: 'Р',
  S: 'Ѕ',
  T: 'Т',
  X: 'Х',
};

/** Each disguise, by name, of a secret. */
const disguises: Record<string, (secret: string) => string> = {
  'a zero-width space inside (U+200B)': (s) => insert(s, '\u200b'),
  'a zero-width joiner inside (U+200D)': (s) => insert(s, '\u200d'),
  'a byte-order mark inside (U+FEFF)': (s) => insert(s, '\ufeff'),
  'a soft hyphen inside (U+00AD)': (s) => insert(s, '\u00ad'),
  'a word joiner inside (U+2060)': (s) => insert(s, '\u2060'),
  'several invisible characters throughout': (s) => [...s].join('\u200b\u2060'),
  'fullwidth letters': (s) =>
    s.replace(/[\x21-\x7e]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replaceAll(' ', '\u3000'),
  'Cyrillic look-alike letters': (s) => s.replace(/[acepoxyABCEHIKMOPSTX]/g, (c) => cyrillic[c]!),
  'a character percent-encoded': (s) => encode(s, (c) => `%${hex(c)}`),
  'a character as a decimal HTML entity': (s) => encode(s, (c) => `&#${c.charCodeAt(0)};`),
  'a character as a hexadecimal HTML entity': (s) => encode(s, (c) => `&#x${hex(c).toLowerCase()};`),
  'a zero-width space as an HTML entity': (s) => insert(s, '&#8203;'),
  'a zero-width space percent-encoded': (s) => insert(s, '%E2%80%8B'),
  'an entity percent-encoded (two layers)': (s) => encode(s, (c) => `%26%23${c.charCodeAt(0)}%3B`),
};

describe('secret scanning sees through disguise', () => {
  for (const [name, disguise] of Object.entries(disguises)) {
    test(`${name}: every kind found, the secret as it reads once revealed`, () => {
      for (const [kind, secret] of secrets) {
        const disguised = disguise(secret);
        assert.notEqual(disguised, secret, `${kind}: the disguise changes ${secret}`);
        const found = scanner.scanText(`My setup, for whoever asked: ${disguised} (do not share).`);
        assert.equal(found?.kind, kind, `${kind} ${name}: ${JSON.stringify(disguised)}`);
        // A key of ours is found as the key itself, which is what gets revoked.
        if (kind === 'bot_platform_api_key') assert.equal(found?.secret, secret);
      }
    });
  }

  test('split between a post’s title and body: found, both fields named', () => {
    for (const [kind, secret] of secrets) {
      const at = Math.floor(secret.length / 2);
      const title = `My key is ${secret.slice(0, at)}`;
      const found = scanner.scanBody({
        category: 'results',
        title,
        body: `${secret.slice(at)} and that is all.`,
      });
      // Half of a long key may be one by itself (an OpenAI key is 40 characters or more).
      const pointers = scanner.scanText(title) ? ['/title'] : ['/title', '/body'];
      assert.deepEqual(found && [found.kind, found.pointers], [kind, pointers], secret);
    }
  });

  test('split and disguised at once: found', () => {
    const key = generateApiKey();
    const found = scanner.scanBody({
      title: `Mine: ${key.slice(0, 10)}\u200b`,
      body: `&#${key.charCodeAt(10)};${key.slice(11)}`,
    });
    assert.deepEqual(found && [found.kind, found.secret], ['bot_platform_api_key', key]);
  });
});

describe('secret scanning refuses secrets, not text', () => {
  const ordinary = [
    'Pair programming: 👩‍💻👨‍💻 and a family 👨‍👩‍👧‍👦, flags 🏳️‍🌈, a heart ❤️‍🔥.',
    'The bp_tracking module, sbp_value, 120 mbps, and my bp readings were subpar today.',
    'Search https://example.com/search?q=snake%5Fcase&page=2 and https://example.com/a%20b%2Fc',
    'Привет! Это обычный текст о ключах API: никогда не публикуйте их.',
    'Καλημέρα, αυτό είναι ένα απλό κείμενο για κλειδιά.',
    'ＡＰＩキーは絶対に投稿しないでください。ＯＫ？',
    'Tom &amp; Jerry &lt;3 &#8217;quoted&#8217; &nbsp; &copy; 2026 &unknown;',
    'An extra\u00adordinary, inter\u00adnational word; a word\u2060joiner; \u200fمرحبا\u200f',
    'Percent signs: 100% sure, 50%-off, %zz and %E2 alone.',
    `bp&#95;${withBrokenChecksum(generateApiKey()).slice(3)} (a key with a bad checksum, disguised)`,
    `ＡＫＩＡshort and ghp\u200b_short`,
  ];
  for (const text of [...ordinary, ...nearMisses])
    test(`passes: ${JSON.stringify(text.slice(0, 60))}`, () => {
      assert.equal(scanner.scanText(text), undefined);
      assert.equal(scanner.scanBody({ title: text, body: text }), undefined);
    });

  test('a plain text is read as it is, untouched', () => {
    const text = 'Nothing to decode here: only printable ASCII.';
    assert.equal(revealed(text), text);
  });
});

// Kinds in the corpus: every one the spec knows.
test('the corpus covers every kind of secret', () => {
  const kinds = (loadSpec().components?.schemas?.SecretKind as { enum: SecretKind[] }).enum;
  assert.deepEqual([...new Set(secrets.map(([kind]) => kind))].sort(), [...kinds].sort());
});
