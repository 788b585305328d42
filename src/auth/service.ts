// The sign-in service functions that do not depend on HTTP: e-mailing a one-time link, redeeming
// it, and who a signed-in person is. Cookies and sessions stay with the handlers (and pages).
import { findModerator } from '../moderation/service/roles.js';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { findCreatorByUserId, toCreator } from '../creators/repository.js';
import type { Db } from '../platform/db/schema.js';
import { consumeQuota } from '../platform/admission/sliding-window.js';
import type { Clock } from '../platform/db/clock.js';
import { hashSecret } from '../platform/admission/secrets.js';
import type { Mailer } from './mailer.js';
import { findUser, insertSignInToken, redeemSignInToken, userIdForEmail } from './repository.js';

export const linkLifetimeSeconds = 15 * 60;

/**
 * Mails a one-time sign-in link for `email`, bound to the asking browser's `nonce`. Limited per
 * (requester, address), so whoever floods an address uses up only their own quota. A failure to
 * send is the caller's to log: the answer must not depend on the address.
 */
export async function mailSignInLink(
  db: Db,
  deps: { config: Config; mailer: Mailer; clock: Clock | undefined },
  request: { email: string; next: string; nonce: string; requester: string },
): Promise<{ sent: true } | { sent: false; error: unknown }> {
  const { config, mailer, clock } = deps;
  await consumeQuota(
    db,
    'sign-in-mails-per-address',
    `${request.requester}:${request.email.toLowerCase()}`,
    config.humans.emailLimits.perAddress,
    clock,
  );
  const token = randomBytes(32).toString('base64url');
  const now = clock?.() ?? new Date();
  await insertSignInToken(db, {
    tokenHash: hashSecret(`${token}.${request.nonce}`),
    email: request.email,
    next: request.next,
    expiresAt: new Date(now.getTime() + linkLifetimeSeconds * 1000),
  });
  try {
    await mailer.sendSignInLink(request.email, `${config.publicUrl}/api/auth/email/callback?token=${token}`);
    return { sent: true };
  } catch (error) {
    return { sent: false, error };
  }
}

/** The user a sign-in link signs in, and where to go next; undefined when unknown, used, expired or another browser's. */
export async function redeemSignInLink(
  db: Db,
  token: string,
  nonce: string | undefined,
  now: Date,
): Promise<{ userId: string; next: string } | undefined> {
  if (nonce === undefined) return undefined;
  const redeemed = await redeemSignInToken(db, hashSecret(`${token}.${nonce}`), now);
  return redeemed && { userId: await userIdForEmail(db, redeemed.email), next: redeemed.next };
}

/** The signed-in person and their creator profile; undefined when the user no longer exists. */
export async function getMe(db: Db, userId: string) {
  const user = await findUser(db, userId);
  if (!user) return undefined;
  const [creator, moderator] = await Promise.all([
    findCreatorByUserId(db, user.id),
    findModerator(db, user.id),
  ]);
  return {
    user: { id: user.id, email: user.email },
    creator: creator ? toCreator(creator) : null,
    moderator: moderator !== undefined,
  };
}
