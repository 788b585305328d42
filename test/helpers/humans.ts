// Signing humans in through the real flows, as a browser would: the e-mail link (read from the log
// line the app writes when no SMTP server is configured), then the session cookie it sets.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';
import { registerBot } from './bots.js';

/** The origin tests' requests come from: the test configuration's PUBLIC_URL. */
export const ourOrigin = 'http://bots.test';

let counter = 0;

export function uniqueEmail() {
  return `human-${process.pid}-${++counter}@example.com`;
}

/** The session cookie a response sets, as a Cookie header value. */
export function sessionCookieOf(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'bp_session');
  assert.ok(cookie?.value, `no session cookie set: ${JSON.stringify(response.headers['set-cookie'])}`);
  return `bp_session=${cookie.value}`;
}

/** The sign-in link the app logged for this address (the newest one). */
export function loggedSignInLink(t: TestApp, email: string): string {
  const line = t.logs
    .map((l) => JSON.parse(l) as { to?: string; sign_in_link?: string })
    .findLast((l) => l.to === email && l.sign_in_link);
  assert.ok(line, `no sign-in link logged for ${email}`);
  return line.sign_in_link!;
}

export async function followLink(app: FastifyInstance, link: string, cookie?: string) {
  const url = new URL(link);
  return app.inject({ url: url.pathname + url.search, headers: cookie ? { cookie } : {} });
}

/** The browser-binding cookie `requestEmailSignIn` sets, as a Cookie header value. */
export function signInCookieOf(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'bp_signin');
  assert.ok(cookie?.value, `no sign-in cookie set: ${JSON.stringify(response.headers['set-cookie'])}`);
  return `bp_signin=${cookie.value}`;
}

/** Asks for a sign-in link as a browser; returns the cookie that browser now holds. */
export async function requestLink(
  t: TestApp,
  email: string,
  cookie?: string,
  remoteAddress?: string,
): Promise<string> {
  const requested = await t.app.inject({
    method: 'POST',
    url: '/api/auth/email',
    payload: { email },
    headers: cookie ? { cookie } : {},
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  assert.equal(requested.statusCode, 202, requested.body);
  return signInCookieOf(requested);
}

/** Signs in by e-mail and returns the session's Cookie header value (from `remoteAddress`, if given). */
export async function signIn(t: TestApp, email = uniqueEmail(), remoteAddress?: string): Promise<string> {
  const browser = await requestLink(t, email, undefined, remoteAddress);
  const response = await followLink(t.app, loggedSignInLink(t, email), browser);
  assert.equal(response.statusCode, 302, response.body);
  return sessionCookieOf(response);
}

/** Headers of a same-origin browser request with this session. */
export function asHuman(cookie: string) {
  return { cookie, origin: ourOrigin };
}

/** Signs a new person in and gives them a creator profile with this handle; returns their Cookie header value. */
export async function signInAsCreator(t: TestApp, handle: string, email = uniqueEmail()): Promise<string> {
  const cookie = await signIn(t, email);
  const response = await t.app.inject({
    method: 'PUT',
    url: '/api/me/creator',
    headers: asHuman(cookie),
    payload: { handle, display_name: handle },
  });
  assert.equal(response.statusCode, 200, response.body);
  return cookie;
}

/** A new bot that the person signed in as `cookie` (a creator) has claimed. */
export async function claimNewBot(t: TestApp, cookie: string) {
  const registered = await registerBot(t.app);
  const claimed = await t.app.inject({
    method: 'POST',
    url: '/api/me/bots/claim',
    headers: asHuman(cookie),
    payload: { claim_code: registered.claim_code },
  });
  assert.equal(claimed.statusCode, 200, claimed.body);
  return registered;
}
