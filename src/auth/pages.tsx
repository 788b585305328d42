// Signing in and out from a browser: the sign-in page (/sign-in: an e-mail link, or a provider's
// button), its form (requestEmailSignIn) and the sign-out form (signOut). The link lands on `next`
// (default /me): the page the person came from.
import type { WebPages } from '../platform/web/plugin.js';
import { requestEmailSignIn, signOut, type AuthDependencies } from './sign-in.js';
import { loggedLinkLead } from './mailer.js';
import { SignInView } from './views.js';

export function authPages(web: WebPages, deps: Omit<AuthDependencies, 'oauthProviders'>) {
  const { send } = web;
  const providers = deps.config.humans.oauthProviders.map((provider) => provider.name);
  const { emailSignIn } = deps.config.humans;

  web.app.get<{ Querystring: { next?: string } }>(
    '/sign-in',
    web.getRoute({ querystring: web.schemaOf('startOAuthSignIn').querystring! }),
    async (request, reply) =>
      send(
        request,
        reply,
        'Sign in',
        <SignInView next={request.query.next ?? '/me'} emailSignIn={emailSignIn} providers={providers} />,
      ),
  );

  web.form(
    '/sign-in',
    'requestEmailSignIn',
    (fields) => ({ email: fields.email ?? '', next: fields.next || '/me' }),
    async (request, reply, { fields, body, errors }) => {
      if (errors) {
        return send(
          request,
          reply,
          'Sign in',
          <SignInView
            next={fields.next || '/me'}
            emailSignIn={emailSignIn}
            providers={providers}
            errors={errors}
            email={fields.email}
          />,
          400,
        );
      }
      await requestEmailSignIn(deps, request, reply, body);
      const loggedAs = deps.mailer.logsLinks ? loggedLinkLead : undefined;
      return send(
        request,
        reply,
        loggedAs ? "Your link is in the server's log" : 'Check your inbox',
        <SignInView
          next={body.next ?? '/me'}
          emailSignIn={emailSignIn}
          providers={providers}
          sentTo={body.email}
          loggedAs={loggedAs}
        />,
      );
    },
  );

  web.form('/sign-out', 'signOut', null, async (request, reply) => {
    await signOut(deps.config, request, reply);
    return reply.redirect('/', 303);
  });
}
