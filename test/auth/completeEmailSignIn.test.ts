import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import {
  followLink,
  loggedSignInLink,
  requestLink as askAsBrowser,
  sessionCookieOf,
  uniqueEmail,
} from '../helpers/humans.js';
import { serverLogStream } from '../helpers/logs.js';

// The app's clock, moved by the tests instead of waiting 15 minutes.
let offsetMs = 0;
const t = useTestApp({}, { clock: () => new Date(Date.now() + offsetMs) });

/** A link asked for by a new browser: the link, and that browser's cookie. */
async function requestLink(email = uniqueEmail()) {
  const browser = await askAsBrowser(t, email);
  return { link: loggedSignInLink(t, email), browser };
}

describe('completeEmailSignIn 302', () => {
  test('signs in with a fresh session id: a session planted before sign-in is not the one signed in', async () => {
    offsetMs = 0;
    const { link, browser } = await requestLink();
    const signedIn = await followLink(t.app, link, browser);
    assert.equal(signedIn.statusCode, 302, signedIn.body);
    assertContract('completeEmailSignIn', signedIn);
    assert.equal(signedIn.headers.location, '/me');
    const cookie = sessionCookieOf(signedIn);

    // Following a link while holding a session (planted, or just older) never keeps that session's id.
    const next = await requestLink();
    const again = await followLink(t.app, next.link, `${cookie}; ${next.browser}`);
    const second = sessionCookieOf(again);
    assert.notEqual(second, cookie, 'signing in again regenerates the id');
    assert.equal(
      (await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode,
      401,
      'the old id is destroyed',
    );
    assert.equal((await t.app.inject({ url: '/api/me', headers: { cookie: second } })).statusCode, 200);
  });

  test('a link still works just before its 15 minutes are up', async () => {
    offsetMs = 0;
    const { link, browser } = await requestLink();
    offsetMs = 14 * 60_000 + 59_000;
    assert.equal((await followLink(t.app, link, browser)).statusCode, 302);
    offsetMs = 0;
  });

  test('the one-time token never reaches a log line', async () => {
    offsetMs = 0;
    const { link, browser } = await requestLink();
    const token = new URL(link).searchParams.get('token')!;
    t.logs.length = 0;
    await followLink(t.app, link, browser);
    await followLink(t.app, link, browser); // and the refused second use
    assert.ok(
      t.logs.some((line) => line.includes('/api/auth/email/callback?token=[redacted]')),
      t.logs.join('\n'),
    );
    assert.ok(!t.logs.some((line) => line.includes(token)));
  });
});

describe('completeEmailSignIn 400', () => {
  test('a link works once', async () => {
    offsetMs = 0;
    const { link, browser } = await requestLink();
    assert.equal((await followLink(t.app, link, browser)).statusCode, 302);
    const reused = await followLink(t.app, link, browser);
    assert.equal(reused.statusCode, 400);
    assertContract('completeEmailSignIn', reused);
    assert.equal(reused.json().code, 'invalid_token');
    assert.ok(!reused.headers['set-cookie'], 'no session for a spent link');
  });

  test('an expired link fails', async () => {
    offsetMs = 0;
    const { link, browser } = await requestLink();
    offsetMs = 15 * 60_000 + 1_000;
    const expired = await followLink(t.app, link, browser);
    assert.equal(expired.statusCode, 400, expired.body);
    assert.equal(expired.json().code, 'invalid_token');
    offsetMs = 0;
  });

  test('a link signs in only the browser that asked for it', async () => {
    offsetMs = 0;
    const email = uniqueEmail();
    const { link, browser } = await requestLink(email);
    // Another browser: no cookie, the cookie of another request, or a forged (unsigned) one.
    const other = (await requestLink()).browser;
    for (const cookie of [undefined, other, 'bp_signin=forged-nonce']) {
      const response = await followLink(t.app, link, cookie);
      assert.equal(response.statusCode, 400, String(cookie));
      assertContract('completeEmailSignIn', response);
      assert.equal(response.json().code, 'invalid_token');
      assert.match(response.json().detail, /another browser/);
      assert.ok(!response.cookies.some((c) => c.name === 'bp_session'), 'no session for another browser');
    }
    // The link is not spent by those attempts: the browser that asked still signs in, as that address.
    const signedIn = await followLink(t.app, link, browser);
    assert.equal(signedIn.statusCode, 302);
    const me = await t.app.inject({ url: '/api/me', headers: { cookie: sessionCookieOf(signedIn) } });
    assert.equal(me.json().user.email, email);
  });

  test('an unknown or malformed token fails', async () => {
    for (const token of ['x'.repeat(43), 'not a token', 'x'.repeat(300)]) {
      const response = await t.app.inject({ url: '/api/auth/email/callback', query: { token } });
      assert.equal(response.statusCode, 400, token);
      assertContract('completeEmailSignIn', response);
    }
    assert.equal((await t.app.inject({ url: '/api/auth/email/callback' })).statusCode, 400);
  });
});

describe('completeEmailSignIn 404', () => {
  test('with EMAIL_SIGNIN=off, following links is not found, even a link sent while it was on', async () => {
    offsetMs = 0;
    const { link, browser } = await requestLink();
    const off = await buildApp({
      config: testConfig({ humans: { ...t.config.humans, emailSignIn: false } }),
      db: t.db,
      logStream: serverLogStream(),
    });
    try {
      const followed = await off.inject({
        url: '/api/auth/email/callback',
        query: { token: 'x'.repeat(43) },
      });
      assert.equal(followed.statusCode, 404);
      assertContract('completeEmailSignIn', followed);
      const sent = await followLink(off, link, browser);
      assert.equal(sent.statusCode, 404, sent.body);
      assertContract('completeEmailSignIn', sent);
      assert.ok(!sent.cookies.some((c) => c.name === 'bp_session'), 'no session');
    } finally {
      await off.close();
    }
  });
});
