// A port of 127.0.0.1 that no one holds now: for a test whose PUBLIC_URL must be the very address
// its server will listen on (files that print URLs, redirects), known before the app is built, and
// for the servers a test or benchmark starts itself (a private Postgres, a server process).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
