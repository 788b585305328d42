// The session cookie's name, attributes and lifetime: one statement of them for the session plugin
// that sets the cookie and the sign-out handlers that clear it.
import type { Config } from '../../config.js';

/**
 * `bp_session`; over HTTPS `__Host-bp_session`, a name browsers accept only with Secure, Path=/ and
 * no Domain, so a sibling subdomain cannot plant or overwrite it.
 */
export function sessionCookieName(config: Config): string {
  return config.publicUrl.startsWith('https:') ? '__Host-bp_session' : 'bp_session';
}
export const sessionLifetimeMs = 30 * 24 * 3600 * 1000;

const sessionCookieInHeader = /(?:^|;\s*)(?:__Host-)?bp_session=/;

/** Whether a Cookie header carries a session cookie (valid or not: only the session plugin can tell). */
export function carriesSessionCookie(cookieHeader: string | undefined): boolean {
  return cookieHeader !== undefined && sessionCookieInHeader.test(cookieHeader);
}

export function sessionCookieOptions(config: Config) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.publicUrl.startsWith('https:'),
  };
}
