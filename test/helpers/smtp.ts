// A real SMTP server (smtp-server) on a free port of 127.0.0.1 that keeps every mail it receives,
// for the tests of e-mail sign-in. Call with top-level `await`: the app's configuration needs its URL.
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The message as sent (quoted-printable and all). */
  raw: string;
  /** The message with quoted-printable soft line breaks and `=3D` undone, so a link reads whole. */
  text: string;
}

export async function startSmtpServer(): Promise<{ url: string; received: ReceivedMail[] }> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`, received };
}
