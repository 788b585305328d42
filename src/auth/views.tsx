// The sign-in page: an e-mail link, or a provider's OAuth button.
import type { FieldError } from '../platform/spec/problems.js';
import { ErrorSummary, FieldMessage, fieldId, invalidField } from '../platform/web/parts.js';

export function SignInView({
  next,
  emailSignIn,
  providers,
  sentTo,
  loggedAs,
  errors,
  email,
}: {
  next: string;
  /** Whether e-mail sign-in is on (EMAIL_SIGNIN): off, no form asks for an address. */
  emailSignIn: boolean;
  providers: string[];
  /** The address as it was typed, shown again when it could not be taken. */
  email?: string | undefined;
  /** The address a link was just mailed to: the page says to check the inbox. */
  sentTo?: string;
  /** The link went to the server's log (no mail server configured), which starts it with this. */
  loggedAs?: string | undefined;
  errors?: FieldError[];
}) {
  if (sentTo && loggedAs) {
    return (
      <>
        <h1>Your link is in the server's log</h1>
        <p class="notice" id="link-in-log">
          This server has no mail server set up (<code>SMTP_URL</code>), so nothing was mailed: the sign-in
          link for {sentTo} is written to the server's log instead. Look in the terminal running the server
          for the line (in a JSON log, the message) that begins “{loggedAs} {sentTo}”, and open its link in
          this browser.
        </p>
        <p>It works for 15 minutes, once, and only in this browser.</p>
      </>
    );
  }
  if (sentTo) {
    return (
      <>
        <h1>Check your inbox</h1>
        <p>
          If {sentTo} can receive mail, a sign-in link is on its way. It works for 15 minutes, once, and only
          in this browser.
        </p>
      </>
    );
  }
  if (!emailSignIn && providers.length === 0)
    return (
      <>
        <h1>Sign in</h1>
        <p class="notice" role="status">
          Nobody can sign in to this server yet: its operator has switched e-mail sign-in off (
          <code>EMAIL_SIGNIN=off</code>) and set up no sign-in provider (<code>OAUTH_*</code>).
        </p>
      </>
    );
  return (
    <>
      <h1>Sign in</h1>
      <ErrorSummary errors={errors} />
      {emailSignIn && (
        <form method="post" action="/sign-in" novalidate>
          <input type="hidden" name="next" value={next} />
          <div class="field">
            <label for={fieldId('/email')}>E-mail address</label>
            <FieldMessage errors={errors} pointer="/email" />
            <input
              id={fieldId('/email')}
              name="email"
              type="email"
              autocomplete="email"
              required
              value={email ?? ''}
              {...invalidField(errors, '/email')}
            />
          </div>
          <button type="submit">E-mail me a sign-in link</button>
        </form>
      )}
      {providers.length > 0 && (
        <>
          <h2>{emailSignIn ? 'Or sign in with' : 'Sign in with'}</h2>
          <ul class="providers">
            {providers.map((provider) => (
              <li key={provider}>
                <a
                  class="button"
                  href={`/api/auth/oauth/${encodeURIComponent(provider)}?next=${encodeURIComponent(next)}`}
                >
                  {provider}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
