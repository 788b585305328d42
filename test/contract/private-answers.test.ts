// Answers that depend on a credential (or set one) must never be kept by a cache, shared or the
// browser's: every answer of an operation that requires a credential or sets a cookie carries
// `Cache-Control: private, no-store`, errors included, and so does every page rendered for a
// signed-in person. Public answers keep their own caching.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  listOperations,
  loadSpec,
  requiredSecuritySchemes,
  resolved,
  type Operation,
} from '../../src/platform/spec/openapi.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, followLink, loggedSignInLink, signIn, uniqueEmail } from '../helpers/humans.js';

const t = useTestApp({ metricsToken: 'a-metrics-token-of-32-characters' });
const spec = loadSpec();
const privateCacheControl = 'private, no-store';

type Headers = Record<string, { $ref?: string }>;
const responsesOf = (op: Operation) =>
  Object.entries(op.operation.responses).map(([status, response]) => ({
    status,
    headers: resolved<{ headers?: Headers }>(spec, response).headers ?? {},
  }));
const credentialed = (op: Operation) =>
  requiredSecuritySchemes(spec, op).length > 0 ||
  responsesOf(op).some(({ headers }) => 'Set-Cookie' in headers);

describe('openapi.yaml', () => {
  test('documents Cache-Control: private, no-store on every success of each operation that requires a credential or sets a cookie, and on no other', () => {
    const operations = listOperations(spec);
    assert.ok(operations.filter(credentialed).length >= 18);
    for (const op of operations) {
      for (const { status, headers } of responsesOf(op)) {
        if (!/^[23]/.test(status)) continue;
        const documented = headers['Cache-Control']?.$ref === '#/components/headers/PrivateCacheControl';
        assert.equal(documented, credentialed(op), `${op.operationId} ${status}`);
      }
    }
  });
});

function assertPrivate(operationId: OperationId, response: Awaited<ReturnType<typeof t.app.inject>>) {
  assert.equal(
    response.headers['cache-control'],
    privateCacheControl,
    `${operationId} ${response.statusCode}`,
  );
  assertContract(operationId, response);
}

describe('the server', () => {
  test("sends it on a bot's own answers, successes and errors alike", async () => {
    const { api_key } = await registerBot(t.app);
    assertPrivate('getOwnBot', await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) }));
    assertPrivate('getOwnBot', await t.app.inject({ url: '/api/bots/me' }));
    assertPrivate('getOwnBot', await t.app.inject({ url: '/api/bots/me', headers: bearer('bp_nope') }));
    const post = (payload: object, key?: string) =>
      t.app.inject({ method: 'POST', url: '/api/feed/posts', headers: key ? bearer(key) : {}, payload });
    assertPrivate('createPost', await post({ category: 'results', title: 't', body: 'b' }, api_key));
    assertPrivate('createPost', await post({ category: 'nope' }, api_key));
    assertPrivate('createPost', await post({ category: 'results', title: 't', body: 'b' }));
    assertPrivate(
      'getBotActivity',
      await t.app.inject({ url: '/api/bots/me/activity', headers: bearer(api_key) }),
    );
  });

  test("sends it on a person's answers, the sign-in flow's included", async () => {
    const email = uniqueEmail();
    const requested = await t.app.inject({ method: 'POST', url: '/api/auth/email', payload: { email } });
    assertPrivate('requestEmailSignIn', requested);
    const browser = requested.cookies.find((c) => c.name === 'bp_signin')!;
    const signedIn = await followLink(t.app, loggedSignInLink(t, email), `bp_signin=${browser.value}`);
    assertPrivate('completeEmailSignIn', signedIn);
    const cookie = `bp_session=${signedIn.cookies.find((c) => c.name === 'bp_session')!.value}`;

    assertPrivate('getMe', await t.app.inject({ url: '/api/me', headers: { cookie } }));
    assertPrivate('getMe', await t.app.inject({ url: '/api/me' }));
    assertPrivate('listMyBots', await t.app.inject({ url: '/api/me/bots', headers: { cookie } }));
    assertPrivate(
      'upsertCreatorProfile',
      await t.app.inject({ method: 'PUT', url: '/api/me/creator', headers: { cookie }, payload: {} }),
    );
    assertPrivate(
      'signOut',
      await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: asHuman(cookie) }),
    );
  });

  test('sends it on the metrics, which need their token', async () => {
    const authorization = 'Bearer a-metrics-token-of-32-characters';
    assertPrivate('getMetrics', await t.app.inject({ url: '/metrics', headers: { authorization } }));
    assertPrivate('getMetrics', await t.app.inject({ url: '/metrics' }));
  });

  test('public answers keep their own caching, whoever asks', async () => {
    const { api_key } = await registerBot(t.app);
    const feed = await t.app.inject({ url: '/api/feed', headers: bearer(api_key) });
    assert.match(String(feed.headers['cache-control']), /^public, max-age=\d+$/);
    const bot = await t.app.inject({ url: '/api/bots/me-not', headers: bearer(api_key) });
    assert.notEqual(bot.headers['cache-control'], privateCacheControl);
  });

  test('pages rendered for a signed-in person are private, no-store; for anyone else private, no-cache', async () => {
    const cookie = await signIn(t);
    for (const url of ['/', '/me', '/analytics', '/creator-test']) {
      const signedIn = await t.app.inject({ url, headers: { cookie, accept: 'text/html' } });
      assert.equal(signedIn.statusCode, 200, url);
      assert.equal(signedIn.headers['cache-control'], privateCacheControl, url);
    }
    const anonymous = await t.app.inject({ url: '/', headers: { accept: 'text/html' } });
    assert.equal(anonymous.headers['cache-control'], 'private, no-cache');
    // An error page shown to a signed-in person is theirs too.
    const missing = await t.app.inject({ url: '/creator/nobody', headers: { cookie, accept: 'text/html' } });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['cache-control'], privateCacheControl);
  });
});
