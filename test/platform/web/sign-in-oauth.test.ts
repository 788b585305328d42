// The sign-in page with OAuth providers configured: a button (a plain link, so the page's
// form-action policy never applies) per provider, starting that provider's flow with next=/me.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useOAuthTestApp } from '../../helpers/oauth.js';

const { t } = await useOAuthTestApp();

describe('/sign-in with OAuth providers', () => {
  test('offers each configured provider, and its button starts that provider’s flow', async () => {
    const page = await t.app.inject({ url: '/sign-in' });
    assert.equal(page.statusCode, 200);
    for (const name of ['oidc', 'plain', 'down']) {
      assert.match(
        page.body,
        new RegExp(`<a class="button" href="/api/auth/oauth/${name}\\?next=%2Fme">${name}</a>`),
      );
    }
    const started = await t.app.inject({ url: '/api/auth/oauth/oidc?next=%2Fme' });
    assert.equal(started.statusCode, 302, started.body);
    assert.match(String(started.headers.location), /\/authorize\?/);
  });
});
