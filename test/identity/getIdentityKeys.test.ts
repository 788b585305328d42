// getIdentityKeys (GET /.well-known/jwks.json) and getOpenIdConfiguration: the public half of the
// signing keys and the issuer's discovery document, public, cacheable, answered from memory.
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

describe('getOpenIdConfiguration 200', () => {
  test('names the issuer (PUBLIC_URL, the tokens’ iss) and where its keys are', async () => {
    const response = await t.app.inject({ url: '/.well-known/openid-configuration' });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('getOpenIdConfiguration', response);
    const discovery = response.json();
    assert.equal(discovery.issuer, t.config.publicUrl);
    assert.equal(discovery.jwks_uri, `${t.config.publicUrl}/.well-known/jwks.json`);
    assert.deepEqual(discovery.id_token_signing_alg_values_supported, ['ES256']);
    assert.equal(discovery.authorization_endpoint, undefined, 'no OpenID provider: no fields only one has');
    assert.equal(discovery.response_types_supported, undefined);
    assert.equal(response.headers['cache-control'], 'public, max-age=300');
  });
});
