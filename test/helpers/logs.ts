// Server log lines, out of sight unless something fails: every app a test builds writes its log
// here, and a test file that fails prints the last lines of it on its way out. Passing files print
// nothing, so `npm test` shows test results, not server chatter.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';

const keep = 200;
const lines: string[] = [];

export function keepLogLine(line: string) {
  lines.push(line);
  if (lines.length > keep) lines.shift();
}

/** pino's level of a bug's log line (a stack trace): `error`. */
const errorLevel = 50;

/** Fails when any of these log lines (a test app's, see TestApp.logs) was written at error level or above. */
export function assertNoErrorLogged(logLines: string[]) {
  const errors = logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= errorLevel);
  assert.deepEqual(errors, [], 'logged at error level');
}

/** A log stream for apps built by tests (buildApp's `logStream`). */
export function serverLogStream(): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) keepLogLine(line);
      done();
    },
  });
}

process.on('exit', (code) => {
  if ((process.exitCode ?? code) === 0 || lines.length === 0) return;
  process.stderr.write(
    `\n--- server log of this test file (its last ${lines.length} lines) ---\n${lines.join('\n')}\n--- end of server log ---\n`,
  );
});
