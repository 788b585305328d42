// Handlers of signing in and out: requestEmailSignIn, completeEmailSignIn, startOAuthSignIn,
// completeOAuthSignIn, signOut, signOutEverywhere, getMe. The browser's side of each (its cookies,
// the session regenerated) is in ./sign-in.ts, the rest in ./service.ts.
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { ProblemError } from '../platform/spec/problems.js';
import { signedInUserId } from '../platform/admission/request-context.js';
import { getMe, linkLifetimeSeconds } from './service.js';
import {
  completeEmailSignIn,
  completeOAuthSignIn,
  requestEmailSignIn,
  signOut,
  signOutEverywhere,
  startOAuthSignIn,
  type AuthDependencies,
} from './sign-in.js';

export function authHandlers(deps: AuthDependencies) {
  const { db, config } = deps;
  return {
    async requestEmailSignIn({ body, request, reply }) {
      await requestEmailSignIn(deps, request, reply, body);
      // Still a 202 when sending failed: the answer must not depend on the address. The operator sees it.
      return { status: 202, body: { status: 'pending', expires_in_seconds: linkLifetimeSeconds } };
    },

    async completeEmailSignIn({ query, request, reply }) {
      const next = await completeEmailSignIn(deps, request, reply, query.token);
      return { status: 302, headers: { location: next } };
    },

    async startOAuthSignIn({ params, query, request, reply }) {
      const url = await startOAuthSignIn(deps, request, reply, {
        provider: params.provider,
        next: query.next,
      });
      return { status: 302, headers: { location: url.href } };
    },

    async completeOAuthSignIn({ params, query, request, reply }) {
      const next = await completeOAuthSignIn(deps, request, reply, params.provider, query);
      return { status: 302, headers: { location: next } };
    },

    async signOut({ request, reply }) {
      await signOut(config, request, reply);
      return { status: 204 };
    },

    async signOutEverywhere({ request, reply }) {
      await signOutEverywhere(deps, request, reply, signedInUserId(request));
      return { status: 204 };
    },

    async getMe({ request }) {
      const person = await getMe(db, signedInUserId(request));
      if (!person) {
        await request.session.destroy();
        throw new ProblemError(401, 'unauthorized', 'Sign in first.');
      }
      return { status: 200, body: person };
    },
  } satisfies Pick<
    HandlerMap,
    | 'requestEmailSignIn'
    | 'completeEmailSignIn'
    | 'startOAuthSignIn'
    | 'completeOAuthSignIn'
    | 'signOut'
    | 'signOutEverywhere'
    | 'getMe'
  >;
}
