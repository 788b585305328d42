// getIdentityKeys (GET /.well-known/jwks.json): the public half of the signing keys, public,
// cacheable, answered from memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getIdentityKeys 200', () => {
  test('EC P-256 public keys only, cacheable, with an ETag that answers 304', async () => {
    const response = await t.app.inject({ url: '/.well-known/jwks.json' });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('getIdentityKeys', response);
    assert.equal(response.headers['cache-control'], 'public, max-age=300');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    const { keys } = response.json<{ keys: Array<Record<string, string>> }>();
    assert.equal(keys.length, 1, 'the current signing key is published before it signs anything');
    assert.deepEqual(Object.keys(keys[0]!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(keys[0]!.d, undefined);
    const again = await t.app.inject({
      url: '/.well-known/jwks.json',
      headers: { 'if-none-match': String(response.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });
});
