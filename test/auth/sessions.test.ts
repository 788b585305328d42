// The session cookie and its store: cookie attributes, secret rotation, expiry and cleanup.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { pruneExpiredSignInTokens } from '../../src/auth/repository.js';
import { pruneExpiredSessions } from '../../src/platform/sessions/repository.js';
import { logCollector, testConfig, useTestApp } from '../helpers/app.js';
import {
  followLink,
  loggedSignInLink,
  requestLink,
  signIn,
  signInCookieOf,
  uniqueEmail,
} from '../helpers/humans.js';

const t = useTestApp();
const apps: Array<{ close(): Promise<unknown> }> = [];
after(() => Promise.all(apps.map((app) => app.close())));

async function appWith(overrides: Parameters<typeof testConfig>[0], logs: string[] = []) {
  const app = await buildApp({ config: testConfig(overrides), db: t.db, logStream: logCollector(logs) });
  apps.push(app);
  return app;
}

describe('the session cookie', () => {
  test('HttpOnly, SameSite=Lax, Path=/, 30 days; not Secure on plain http', async () => {
    const email = uniqueEmail();
    const browser = await requestLink(t, email);
    const response = await followLink(t.app, loggedSignInLink(t, email), browser);
    const header =
      [response.headers['set-cookie'] ?? []].flat().find((h) => h.startsWith('bp_session=')) ?? '';
    assert.match(header, /^bp_session=[^;]+;/, String(response.headers['set-cookie']));
    assert.match(header, /; HttpOnly/);
    assert.match(header, /; SameSite=Lax/);
    assert.match(header, /; Path=\//);
    assert.doesNotMatch(header, /; Secure/);
    const expires = new Date(/Expires=([^;]+)/.exec(header)![1]!).getTime();
    assert.ok(Math.abs(expires - (Date.now() + 30 * 24 * 3600_000)) < 60_000, header);
  });

  test('__Host-bp_session and Secure when PUBLIC_URL is https (behind a TLS proxy that is trusted)', async () => {
    const logs: string[] = [];
    const app = await appWith({ publicUrl: 'https://bots.test', trustProxy: true }, logs);
    const email = uniqueEmail();
    const https = { 'x-forwarded-proto': 'https' };
    const asked = await app.inject({
      method: 'POST',
      url: '/api/auth/email',
      payload: { email },
      headers: https,
    });
    const link = new URL(logs.map((l) => JSON.parse(l)).findLast((l) => l.to === email).sign_in_link);
    const response = await app.inject({
      url: link.pathname + link.search,
      headers: { ...https, cookie: signInCookieOf(asked) },
    });
    assert.equal(response.statusCode, 302);
    const headers = [response.headers['set-cookie'] ?? []].flat();
    const header = headers.find((h) => h.startsWith('__Host-bp_session=')) ?? '';
    // What browsers require of a __Host- cookie: Secure, Path=/, no Domain.
    assert.match(header, /^__Host-bp_session=[^;]+; Path=\/;.*; Secure/, headers.join('\n'));
    assert.doesNotMatch(header, /Domain=/i);
    assert.ok(!headers.some((h) => h.startsWith('bp_session=')));
    const cookie = `__Host-bp_session=${response.cookies.find((c) => c.name === '__Host-bp_session')!.value}`;
    const me = await app.inject({ url: '/api/me', headers: { ...https, cookie } });
    assert.equal(me.statusCode, 200, 'the prefixed cookie is the session');
  });

  test('without SESSION_SECRET (development, tests), the generated secret is announced as ephemeral', async () => {
    assert.equal(t.config.humans.sessionSecretEphemeral, true);
    const logs: string[] = [];
    await (await appWith({}, logs)).ready();
    assert.ok(
      logs.some((line) => JSON.parse(line).level === 40 && /SESSION_SECRET is not set/.test(line)),
      logs.join('\n'),
    );
  });

  test('only signed-in sessions are stored: anonymous requests leave no row and get no cookie', async () => {
    const response = await t.app.inject({ url: '/api/feed' });
    assert.equal(response.headers['set-cookie'], undefined);
    assert.equal((await t.db.selectFrom('sessions').select('id_hash').execute()).length, 0);
  });

  test('secrets rotate: a cookie signed with a secret still listed is accepted, one no longer listed is not', async () => {
    const [oldSecret, newSecret] = ['o'.repeat(32), 'n'.repeat(32)];
    const logs: string[] = [];
    const before = await appWith({ humans: { ...testConfig().humans, sessionSecrets: [oldSecret] } }, logs);
    const email = uniqueEmail();
    const asked = await before.inject({ method: 'POST', url: '/api/auth/email', payload: { email } });
    const link = new URL(logs.map((l) => JSON.parse(l)).findLast((l) => l.to === email).sign_in_link);
    const signedIn = await before.inject({
      url: link.pathname + link.search,
      headers: { cookie: signInCookieOf(asked) },
    });
    const cookie = `bp_session=${signedIn.cookies.find((c) => c.name === 'bp_session')!.value}`;

    const rotating = await appWith({
      humans: { ...testConfig().humans, sessionSecrets: [newSecret, oldSecret] },
    });
    assert.equal((await rotating.inject({ url: '/api/me', headers: { cookie } })).statusCode, 200);
    const rotated = await appWith({ humans: { ...testConfig().humans, sessionSecrets: [newSecret] } });
    assert.equal((await rotated.inject({ url: '/api/me', headers: { cookie } })).statusCode, 401);
  });
});

describe('session expiry', () => {
  test('an expired session is refused, and expired rows (sessions and sign-in tokens) are deleted', async () => {
    const cookies = [await signIn(t), await signIn(t), await signIn(t)];
    await t.app.inject({ method: 'POST', url: '/api/auth/email', payload: { email: uniqueEmail() } }); // an unused token
    await sql`update sessions set expires_at = now() - interval '1 second' where id_hash in (select id_hash from sessions limit 1)`.execute(
      t.db,
    );
    const statuses = await Promise.all(
      cookies.map(async (cookie) => (await t.app.inject({ url: '/api/me', headers: { cookie } })).statusCode),
    );
    assert.deepEqual(statuses.sort(), [200, 200, 401]);

    assert.equal(await pruneExpiredSessions(t.db, new Date()), 1);
    assert.equal(await pruneExpiredSignInTokens(t.db, new Date()), 0);
    const later = new Date(Date.now() + 31 * 24 * 3600_000);
    assert.equal(await pruneExpiredSessions(t.db, later), 2, 'the other sessions');
    assert.equal(await pruneExpiredSignInTokens(t.db, later), 4, 'every sign-in token, used or not');
    assert.equal((await t.db.selectFrom('sessions').select('id_hash').execute()).length, 0);
    assert.equal((await t.db.selectFrom('email_sign_in_tokens').select('token_hash').execute()).length, 0);
  });
});
