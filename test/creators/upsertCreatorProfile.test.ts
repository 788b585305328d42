import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, ourOrigin, signIn } from '../helpers/humans.js';
import { assertNoErrorLogged } from '../helpers/logs.js';

const t = useTestApp();

const put = (cookie: string, payload: object) =>
  t.app.inject({ method: 'PUT', url: '/api/me/creator', headers: asHuman(cookie), payload });

/** The same operation through its page form (/me/creator), as a browser posts it. */
const postForm = (cookie: string, fields: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: '/me/creator',
    headers: { ...asHuman(cookie), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });

describe('upsertCreatorProfile 200', () => {
  test('creates the profile, lower-casing the handle, then updates it', async () => {
    const cookie = await signIn(t);
    const created = await put(cookie, {
      handle: 'Alice_1',
      display_name: ' Alice ',
      bio: 'Bots that argue.',
    });
    assert.equal(created.statusCode, 200, created.body);
    assertContract('upsertCreatorProfile', created);
    const { created_at: createdAt, ...profile } = created.json<{ created_at: string }>();
    assert.deepEqual(profile, {
      handle: 'alice_1',
      display_name: 'Alice',
      bio: 'Bots that argue.',
      type: null,
    });
    assert.ok(Date.parse(createdAt) > 0);
    const updated = await put(cookie, { handle: 'alice-2', display_name: 'Alice L.' });
    assert.equal(updated.json().handle, 'alice-2');
    assert.equal(updated.json().bio, null);
    assert.equal(updated.json().created_at, created.json().created_at);
    assert.equal((await t.db.selectFrom('creators').select('handle').execute()).length, 1);
    const nullBio = await put(cookie, { handle: 'alice-2', display_name: 'Alice L.', bio: null });
    assert.equal(nullBio.statusCode, 200, nullBio.body);
    assert.equal(nullBio.json().bio, null);
  });
});

describe('upsertCreatorProfile 400', () => {
  test('a handle outside 2-32 of a-z 0-9 _ -, a blank display name, unknown fields', async () => {
    const cookie = await signIn(t);
    for (const payload of [
      { handle: 'a', display_name: 'A' },
      { handle: 'al ice', display_name: 'A' },
      { handle: 'x'.repeat(33), display_name: 'A' },
      { handle: 'alice', display_name: '   ' },
      { handle: 'alice', display_name: 'A', extra: 1 },
    ]) {
      const response = await put(cookie, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('upsertCreatorProfile', response);
    }
    assert.equal((await t.db.selectFrom('creators').select('handle').execute()).length, 0);
  });

  test('the page form (/me/creator) applies the same text rules: a NUL is a 400 on the form, never a database error', async () => {
    const cookie = await signIn(t);
    const response = await postForm(cookie, { handle: 'nul', display_name: 'Nul', bio: 'a\u0000b' });
    assert.equal(response.statusCode, 400, response.body.slice(0, 300));
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(
      response.body,
      /id="bio-error"[^>]*>(<span class="visually-hidden">Error: <\/span>)?[^<]*U\+0000/,
    );
    assert.equal((await t.db.selectFrom('creators').select('handle').execute()).length, 0);
    assertNoErrorLogged(t.logs);
  });
});

describe('upsertCreatorProfile: one input path for the API and the page form', () => {
  test('text is stored in NFC whichever way it came: Cafe + U+0301 is Café', async () => {
    const decomposed = 'Cafe\u0301 owner';
    const viaApi = await put(await signIn(t), {
      handle: 'by-api',
      display_name: decomposed,
      bio: decomposed,
    });
    assert.equal(viaApi.statusCode, 200, viaApi.body);
    const viaForm = await postForm(await signIn(t), {
      handle: 'by-form',
      display_name: decomposed,
      bio: decomposed,
    });
    assert.equal(viaForm.statusCode, 303, viaForm.body.slice(0, 300));
    const stored = await t.db
      .selectFrom('creators')
      .select(['handle', 'display_name', 'bio'])
      .orderBy('handle')
      .execute();
    assert.deepEqual(stored, [
      { handle: 'by-api', display_name: 'Café owner', bio: 'Café owner' },
      { handle: 'by-form', display_name: 'Café owner', bio: 'Café owner' },
    ]);
  });
});

describe('upsertCreatorProfile 401', () => {
  test('a session is required; nothing is created without one', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: { origin: ourOrigin },
      payload: { handle: 'alice', display_name: 'Alice' },
    });
    assert.equal(response.statusCode, 401, response.body);
    assertContract('upsertCreatorProfile', response);
    assert.equal((await t.db.selectFrom('creators').select('handle').execute()).length, 0);
  });
});

describe('upsertCreatorProfile 403', () => {
  test('from another origin, a profile is neither created nor changed', async () => {
    const cookie = await signIn(t);
    const fromElsewhere = (payload: object) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/me/creator',
        headers: { cookie, origin: 'https://evil.example' },
        payload,
      });
    const created = await fromElsewhere({ handle: 'mallory', display_name: 'Mallory' });
    assert.equal(created.statusCode, 403, created.body);
    assertContract('upsertCreatorProfile', created);
    assert.equal(created.json().code, 'forbidden');
    assert.equal((await put(cookie, { handle: 'alice', display_name: 'Alice' })).statusCode, 200);
    assert.equal((await fromElsewhere({ handle: 'mallory', display_name: 'Mallory' })).statusCode, 403);
    assert.deepEqual(
      (await t.db.selectFrom('creators').select(['handle', 'display_name']).execute()).map((c) => [
        c.handle,
        c.display_name,
      ]),
      [['alice', 'Alice']],
    );
  });
});

describe('upsertCreatorProfile 409', () => {
  test('a handle another creator holds, in any case', async () => {
    assert.equal((await put(await signIn(t), { handle: 'alice', display_name: 'Alice' })).statusCode, 200);
    const taken = await put(await signIn(t), { handle: 'ALICE', display_name: 'Other' });
    assert.equal(taken.statusCode, 409);
    assertContract('upsertCreatorProfile', taken);
    assert.equal(taken.json().code, 'handle_taken');
  });
});
