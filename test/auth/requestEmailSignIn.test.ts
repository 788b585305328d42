// E-mail sign-in over a real SMTP server (smtp-server): the mail arrives, its link signs in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { logCollector, testConfig, useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { followLink, sessionCookieOf, signInCookieOf, uniqueEmail } from '../helpers/humans.js';
import { serverLogStream } from '../helpers/logs.js';
import { startSmtpServer } from '../helpers/smtp.js';

// Listening before any hook runs: the app's configuration below needs its URL.
const { url: smtpUrl, received } = await startSmtpServer();

const t = useTestApp(() => ({
  humans: {
    ...testConfig().humans,
    smtpUrl,
    emailLimits: { perAddress: 3, perIp: 5 },
  },
}));

function linkIn(raw: string): string {
  // Quoted-printable soft line breaks ("=\r\n") may split the link.
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = /http:\/\/bots\.test\/api\/auth\/email\/callback\?token=[A-Za-z0-9_-]+/.exec(text);
  assert.ok(match, `no link in the mail:\n${raw}`);
  return match[0];
}

describe('requestEmailSignIn 202', () => {
  test('the mail arrives over SMTP, and its link signs in and lands on `next`', async () => {
    const email = uniqueEmail();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/email',
      payload: { email, next: '/docs/static/index.html' },
    });
    assert.equal(response.statusCode, 202, response.body);
    assertContract('requestEmailSignIn', response);
    assert.deepEqual(response.json(), { status: 'pending', expires_in_seconds: 900 });
    const mail = received.findLast((m) => m.to.includes(email));
    assert.ok(mail, 'the mail was received');
    assert.ok(
      !t.logs.some((line) => line.includes('sign_in_link')),
      'with SMTP configured, the link is not logged',
    );

    const browser = signInCookieOf(response);
    const setCookie = String(response.headers['set-cookie']);
    assert.match(setCookie, /bp_signin=.+; Max-Age=900; Path=\/api\/auth\/email; HttpOnly; SameSite=Lax/);
    const signedIn = await followLink(t.app, linkIn(mail.raw), browser);
    assert.equal(signedIn.statusCode, 302, signedIn.body);
    assert.equal(signedIn.headers.location, '/docs/static/index.html');
    const me = await t.app.inject({ url: '/api/me', headers: { cookie: sessionCookieOf(signedIn) } });
    assert.equal(me.json().user.email, email);
    const again = await followLink(t.app, linkIn(mail.raw), browser);
    assert.equal(again.statusCode, 400, 'the mailed link works once');
    assert.equal(again.json().code, 'invalid_token');
  });

  test('an unknown address gets the same answer as a known one', async () => {
    const known = uniqueEmail();
    const asked = await t.app.inject({ method: 'POST', url: '/api/auth/email', payload: { email: known } });
    await followLink(
      t.app,
      linkIn(received.findLast((m) => m.to.includes(known))!.raw),
      signInCookieOf(asked),
    );
    const answers = await Promise.all(
      [known, uniqueEmail()].map((email) =>
        t.app.inject({ method: 'POST', url: '/api/auth/email', payload: { email } }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => [a.statusCode, a.body]),
      [
        [202, answers[0]!.body],
        [202, answers[0]!.body],
      ],
    );
  });

  test('someone flooding an address uses up only their own quota: its owner still gets a link', async () => {
    const victim = uniqueEmail();
    const from = (remoteAddress: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/email', payload: { email: victim }, remoteAddress });
    for (let i = 0; i < 3; i++) assert.equal((await from('203.0.113.9')).statusCode, 202);
    assert.equal((await from('203.0.113.9')).statusCode, 429, 'the flooder is stopped');
    const owner = await from('198.51.100.7');
    assert.equal(owner.statusCode, 202, 'the owner, elsewhere, is not locked out');
    assert.equal(received.filter((m) => m.to.includes(victim)).length, 4);
  });
});

describe('requestEmailSignIn 400', () => {
  test('an address that is not one, or a `next` that leaves the site, is refused and nothing is sent', async () => {
    const before = received.length;
    const nexts = [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      '/\t/evil.example',
      '/\n',
      '/日本',
      '/ space',
    ];
    for (const [i, payload] of [
      { email: 'not-an-address' },
      ...nexts.map((next) => ({ email: uniqueEmail(), next })),
    ].entries()) {
      // From an address each, so the per-IP limit (counted before validation) stays out of the way.
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/email',
        payload,
        remoteAddress: `198.51.100.${i + 1}`,
      });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('requestEmailSignIn', response);
    }
    assert.equal(received.length, before);
  });

  test('a NUL is named as a NUL, not as the format or the nullable branch it also fails', async () => {
    const before = received.length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/email',
      payload: { email: 'a\u0000@example.com', next: '/me\u0000' },
      remoteAddress: '198.51.100.99',
    });
    assert.equal(response.statusCode, 400);
    assertContract('requestEmailSignIn', response);
    assert.deepEqual(response.json().errors, [
      { in: 'body', pointer: '/email', message: 'must not contain the NUL character (U+0000)' },
      { in: 'body', pointer: '/next', message: 'must not contain the NUL character (U+0000)' },
    ]);
    assert.equal(received.length, before);
  });
});

describe('requestEmailSignIn 429', () => {
  test('per address, then per client IP, with Retry-After', async () => {
    const email = uniqueEmail();
    const send = (address: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/email', payload: { email: address } });
    for (let i = 0; i < 3; i++) assert.equal((await send(email)).statusCode, 202);
    const perAddress = await send(email.toUpperCase());
    assert.equal(perAddress.statusCode, 429);
    assertContract('requestEmailSignIn', perAddress);
    assert.ok(Number(perAddress.headers['retry-after']) > 0);
    // Four requests from this IP so far (the refused one counted for the IP): one more, then refused whatever the address.
    assert.equal((await send(uniqueEmail())).statusCode, 202);
    const perIp = await send(uniqueEmail());
    assert.equal(perIp.statusCode, 429);
    assert.equal(perIp.json().code, 'rate_limited');
  });

  test('the per-IP limit runs before the body is read: invalid requests count, and are refused once it is used up', async () => {
    const send = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/email',
        payload,
        headers: { 'content-type': 'application/json' },
        remoteAddress: '192.0.2.44',
      });
    for (let i = 0; i < 5; i++) assert.equal((await send('{"email": 5}')).statusCode, 400);
    for (const payload of ['{"email": 5}', '{not json', JSON.stringify({ email: uniqueEmail() })]) {
      const refused = await send(payload);
      assert.equal(refused.statusCode, 429, payload);
      assertContract('requestEmailSignIn', refused);
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    }
  });
});

describe('requestEmailSignIn 404', () => {
  // Following links with EMAIL_SIGNIN=off: completeEmailSignIn.test.ts, completeEmailSignIn 404.
  test('with EMAIL_SIGNIN=off, asking for links is not found, and nothing is sent', async () => {
    const off = await buildApp({
      config: testConfig({ humans: { ...t.config.humans, emailSignIn: false } }),
      db: t.db,
      logStream: serverLogStream(),
    });
    try {
      const before = received.length;
      const asked = await off.inject({
        method: 'POST',
        url: '/api/auth/email',
        payload: { email: uniqueEmail() },
      });
      assert.equal(asked.statusCode, 404);
      assertContract('requestEmailSignIn', asked);
      assert.equal(received.length, before);
      // Nor does the sign-in page offer a form that could only lead to that 404.
      const page = await off.inject({ url: '/sign-in', headers: { accept: 'text/html' } });
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /name="email"|E-mail me a sign-in link/);
      assert.match(page.body, /Nobody can sign in to this server yet/);
    } finally {
      await off.close();
    }
    const withProvider = await buildApp({
      config: testConfig({
        humans: {
          ...t.config.humans,
          emailSignIn: false,
          oauthProviders: [
            {
              name: 'github',
              clientId: 'x',
              clientSecret: 'y',
              scopes: 'openid email',
              issuer: undefined,
              authorizationUrl: 'https://id.example/authorize',
              tokenUrl: 'https://id.example/token',
              userinfoUrl: 'https://id.example/userinfo',
            },
          ],
        },
      }),
      db: t.db,
      logStream: serverLogStream(),
    });
    try {
      const page = await withProvider.inject({ url: '/sign-in', headers: { accept: 'text/html' } });
      assert.doesNotMatch(page.body, /name="email"/);
      assert.match(page.body, /<h2>Sign in with<\/h2>/);
      assert.match(page.body, /\/api\/auth\/oauth\/github/);
    } finally {
      await withProvider.close();
    }
  });
});

describe('without SMTP_URL (development)', () => {
  test('the server says at start that links go to its log, and says nothing of it with SMTP or sign-in off', async () => {
    const startLines = async (humans: Partial<typeof t.config.humans>) => {
      const lines: string[] = [];
      const app = await buildApp({
        config: testConfig({ humans: { ...t.config.humans, ...humans } }),
        db: t.db,
        logStream: logCollector(lines),
      });
      await app.close();
      return lines.filter((line) => line.includes('SMTP_URL'));
    };
    const [said] = await startLines({ smtpUrl: undefined });
    assert.match(said ?? '', /E-mail sign-in has no SMTP_URL: sign-in links are written to this log/);
    assert.equal(JSON.parse(said!).level, 40, 'a warning, above the request logs');
    assert.deepEqual(await startLines({ smtpUrl }), []);
    assert.deepEqual(await startLines({ smtpUrl: undefined, emailSignIn: false }), []);
  });
});
