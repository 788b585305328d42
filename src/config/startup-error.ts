// Failures to start that the operator can fix (bad configuration, a database directory in use):
// their message says what to do, so the entry points print it without a stack trace. Whatever an
// entry point prints of a failure to start has every URL's password masked first.
export class StartupError extends Error {}

/**
 * `text` with the password of every URL in it masked (`postgres://app:***@db/platform`), whether or
 * not the URL parses (a Unix socket's `postgres://app:secret@/platform?host=/run/postgresql` does not).
 */
export function withoutPasswords(text: string): string {
  return text.replace(/(\/\/[^/\s:@"']*):[^@\s"']*@/g, '$1:***@');
}

export function exitOnStartupError(error: unknown): never {
  if (error instanceof StartupError) console.error(withoutPasswords(error.message));
  else {
    // A failure nobody foresaw: its stack is for whoever reports it, its secrets for nobody.
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const cause =
      error instanceof Error && error.cause instanceof Error ? `\nCaused by: ${error.cause.stack}` : '';
    console.error(withoutPasswords(`The process could not start: ${stack}${cause}`));
  }
  process.exit(1);
}
