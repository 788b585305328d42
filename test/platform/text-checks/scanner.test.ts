// The detectors of openapi.yaml's x-secret-detectors, against a corpus of secrets of every kind and
// of near misses that must pass (a key of ours with a bad checksum, UUIDs, hashes, base64, prose
// that mentions a prefix). The secrets are made here from their documented shapes, never real.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSpec } from '../../../src/platform/spec/openapi.js';
import { secretScanner } from '../../../src/platform/text-checks/secret-scanner.js';
import { nearMisses, run, secrets } from '../../helpers/secrets.js';

const spec = loadSpec();
const scanner = secretScanner(spec);
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
    assert.deepEqual(found && { pointers: found.pointers, kind: found.kind }, {
      pointers: ['/tags/1'],
      kind: 'google_api_key',
    });
    assert.equal(scanner.scanBody({ n: 5, ok: true, none: null }), undefined);
  });
});
