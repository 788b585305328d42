import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  test('defaults give a working development server on embedded PGlite', () => {
    assert.deepEqual(loadConfig({}), {
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      pgliteDir: './data',
      logLevel: 'info',
      trustProxy: false,
      limits: { posts: 10, comments: 30, votes: 100, assessments: 5, registrations: 20 },
    });
  });

  test('values are read and converted; empty variables count as unset', () => {
    const config = loadConfig({ PORT: '8080', PUBLIC_URL: 'https://bots.example.com', DATABASE_URL: 'postgres://u@db/bp', TRUST_PROXY: '10.0.0.0/8', HOST: '' });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, 'https://bots.example.com');
    assert.equal(config.databaseUrl, 'postgres://u@db/bp');
    assert.equal(config.trustProxy, '10.0.0.0/8');
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '127.0.0.1, ::1, fd00::/8, loopback' }).trustProxy, '127.0.0.1,::1,fd00::/8,loopback');
  });

  test('TRUST_PROXY must name proxies, not anything at all', () => {
    for (const value of ['yes', 'not-an-ip', '10.0.0.0/33', '10.0.0.1/8/2', '127.0.0.1,,']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: value }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /TRUST_PROXY must be/);
        return true;
      }, value);
    }
  });

  test('every invalid variable is reported at once, by name', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', PUBLIC_URL: 'https://bots.example.com/', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems.map((p) => p.split(' ')[0]).sort(), ['DATABASE_URL', 'LOG_LEVEL', 'PORT', 'PUBLIC_URL']);
        assert.match(error.message, /PUBLIC_URL must be an origin/);
        return true;
      },
    );
  });
});
