// Failures to start that the operator can fix (bad configuration, a database directory in use):
// their message says what to do, so the entry points print it without a stack trace.
export class StartupError extends Error {}

export function exitOnStartupError(error: unknown): never {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
}
