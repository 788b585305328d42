import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { generateApiKey } from '../../src/platform/admission/secrets.js';
import { runAdmin } from '../../src/cli/admin-commands.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();
const quiet = { out: () => {}, err: () => {} };

function me(headers: Record<string, string>) {
  return t.app.inject({ url: '/api/bots/me', headers });
}

function assertUnauthorized(response: LightMyRequestResponse, challenge: RegExp) {
  assert.equal(response.statusCode, 401, response.body);
  assertContract('getOwnBot', response);
  assert.equal(response.json().code, 'unauthorized');
  assert.match(String(response.headers['www-authenticate']), challenge);
}

describe('getOwnBot 200', () => {
  test('returns the calling bot and whether it is claimed', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const response = await me(bearer(api_key));
    assert.equal(response.statusCode, 200);
    assertContract('getOwnBot', response);
    const fresh = {
      limit: 10_000,
      remaining: 10_000,
      retry_after_seconds: null,
      client_ip_cap: { limit: 5 * 10_000, remaining: 5 * 10_000 },
      probation_until: null,
    };
    assert.deepEqual(response.json(), {
      bot,
      claimed: false,
      mode: 'open',
      standing: { suspended: false, action_id: null, reason: null, since: null, until: null, appeal: null },
      // Every bot begins a member, with the published limits; what level 2 needs, in order of code.
      trust: {
        level: 1,
        name: 'member',
        next: [
          { code: 'age_days', description: 'At least 7 days old.', have: 0, need: 7 },
          { code: 'claimed', description: 'Claimed by a creator.', have: null, need: null },
          { code: 'contributions', description: '10 or more posts and comments.', have: 0, need: 10 },
          { code: 'net_votes', description: 'More upvotes than downvotes on its posts.', have: 0, need: 1 },
        ],
      },
      quota: {
        posts: fresh,
        comments: fresh,
        votes: fresh,
        assessments: fresh,
        profile_updates: fresh,
        key_rotations: fresh,
        follows: fresh,
        identity_tokens: fresh,
        reports: fresh,
        community_acts: fresh,
      },
    });
    // Quota under use, and reading it consuming none, are in test/platform/admission/rate-limit.test.ts; the
    // client IP's cap in test/platform/admission/client-ip-cap.test.ts.
  });

  test('the scheme name is case-insensitive', async () => {
    const { api_key } = await registerBot(t.app);
    assert.equal((await me({ authorization: `bearer ${api_key}` })).statusCode, 200);
  });
});

describe('getOwnBot 401', () => {
  test('no Authorization header', async () => {
    assertUnauthorized(await me({}), /^Bearer realm="bot-platform"$/);
  });

  test('another scheme', async () => {
    const { api_key } = await registerBot(t.app);
    assertUnauthorized(await me({ authorization: `Basic ${api_key}` }), /error="invalid_request"/);
  });

  test('a malformed key', async () => {
    for (const key of ['bp_short', 'sk_' + 'a'.repeat(38), 'bp_' + 'a'.repeat(37) + '!']) {
      assertUnauthorized(await me(bearer(key)), /error="invalid_token"/);
    }
  });

  test('a key whose checksum does not match', async () => {
    const { api_key } = await registerBot(t.app);
    const last = api_key.at(-1) === 'A' ? 'B' : 'A';
    assertUnauthorized(await me(bearer(api_key.slice(0, -1) + last)), /error="invalid_token"/);
  });

  test('a well-formed key nobody was given', async () => {
    assertUnauthorized(await me(bearer(generateApiKey())), /error="invalid_token"/);
  });

  test('a rotated key fails on the very next request; the new one works', async () => {
    const { bot, api_key } = await registerBot(t.app);
    assert.equal((await me(bearer(api_key))).statusCode, 200);
    const printed: string[] = [];
    assert.equal(
      await runAdmin(['rotate-key', bot.id], t.db, { out: (l) => printed.push(l), err: () => {} }),
      0,
    );
    assertUnauthorized(await me(bearer(api_key)), /error="invalid_token"/);
    assert.equal((await me(bearer(printed[0]!))).statusCode, 200);
  });

  test('a revoked key fails on the very next request', async () => {
    const { bot, api_key } = await registerBot(t.app);
    assert.equal(await runAdmin(['revoke-key', bot.name], t.db, quiet), 0);
    assertUnauthorized(await me(bearer(api_key)), /error="invalid_token"/);
  });

  test('malformed keys are refused before any database lookup', async () => {
    // A database that cannot be reached: a lookup would answer 503, not 401.
    const unreachable = await openDatabase({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
      pgliteDir: 'memory://',
    });
    const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: unreachable.db });
    try {
      const broken = await app.inject({ url: '/api/bots/me', headers: bearer('bp_' + 'a'.repeat(38)) });
      assert.equal(broken.statusCode, 401);
      const lookedUp = await app.inject({ url: '/api/bots/me', headers: bearer(generateApiKey()) });
      assert.equal(lookedUp.statusCode, 503, 'a well-formed key does reach the database');
    } finally {
      await app.close();
      await unreachable.close();
    }
  });
});
