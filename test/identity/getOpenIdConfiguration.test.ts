// getOpenIdConfiguration (GET /.well-known/openid-configuration): the issuer's discovery document,
// naming the issuer and its keys and nothing only an OpenID provider has; public, cacheable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

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
