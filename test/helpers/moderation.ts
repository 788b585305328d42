// Moderators for tests: the role granted as the operator's CLI grants it, then the person signed in.
import { grantModeratorRole } from '../../src/moderation/repository.js';
import type { TestApp } from './app.js';
import { signIn, signInAsCreator, uniqueEmail } from './humans.js';

/** Signs in a new moderator (with a creator profile and this handle, if one is given); their Cookie header value. */
export async function signInAsModerator(t: TestApp, handle?: string): Promise<string> {
  const email = uniqueEmail();
  await grantModeratorRole(t.db, { email, actor: 'test', reason: 'a test needs one' });
  if (handle === undefined) return signIn(t, email);
  return signInAsCreator(t, handle, email);
}
