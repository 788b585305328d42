// Moderators for tests: the role granted as the operator's CLI grants it, then the person signed in.
import assert from 'node:assert/strict';
import { grantModeratorRole } from '../../src/moderation/repository/roles.js';
import type { TestApp } from './app.js';
import { asHuman, signIn, signInAsCreator, uniqueEmail } from './humans.js';

/** Signs in a new moderator (with a creator profile and this handle, if one is given); their Cookie header value. */
export async function signInAsModerator(t: TestApp, handle?: string): Promise<string> {
  const email = uniqueEmail();
  await grantModeratorRole(t.db, { email, actor: 'test', reason: 'a test needs one' });
  if (handle === undefined) return signIn(t, email);
  return signInAsCreator(t, handle, email);
}

/** A moderator's action through the API (`moderate`), which must be written (201); the log entry. */
export async function moderated(t: TestApp, cookie: string, payload: object): Promise<{ id: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/moderation/actions',
    headers: asHuman(cookie),
    payload,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>();
}
