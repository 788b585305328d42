// A webhook receiver on 127.0.0.1, as a bot would run one: every request is verified with the
// Standard Webhooks specification's own library (`standardwebhooks`: a real verifier, not ours), and
// recorded. How it answers is the test's to choose, request by request: 2xx, an error, a redirect,
// a hang, a reset, a huge body, slowly.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** IPv6 addresses that are not public: the webhook tests expect each refused, when set and when delivered to. */
export const refusedIpv6 = [
  '::169.254.169.254', // IPv4-compatible (::/96) forms of metadata, loopback and private addresses
  '::127.0.0.1',
  '::a00:1',
  '::ffff:0:a9fe:a9fe', // IPv4-translated (::ffff:0:0/96)
  'fec0::1', // site-local
  '3fff::1', // documentation (RFC 9637)
  '5f00::1', // SRv6 segment identifiers, outside global unicast
  '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address
  'fe80::1', // link-local
  '2001:2::1', // benchmarking
];

export interface Received {
  id: string;
  timestamp: string;
  body: string;
  /** The payload as the library verified it, or why it refused it. */
  verified: { type: string; timestamp: string; data: { id: string; kind: string } } | { error: string };
  at: number;
}

/** How to answer a request: run by the receiver with the request and the response to write. */
export type Answer = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

const ok: Answer = (_, response) => void response.writeHead(204).end();

export const answers = {
  ok,
  status:
    (code: number): Answer =>
    (_, response) =>
      void response.writeHead(code).end('no'),
  redirect: ((_, response) => void response.writeHead(302, { location: '/elsewhere' }).end()) as Answer,
  /** Never answers (until the connection is closed by the sender). */
  hang: (() => new Promise<void>(() => {})) as Answer,
  reset: ((request) => void request.socket.destroy()) as Answer,
  slowly:
    (ms: number, then: Answer = ok): Answer =>
    async (request, response) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      await then(request, response);
    },
  /** A 200 with a megabyte of body. */
  huge: ((_, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('x'.repeat(1024 * 1024));
  }) as Answer,
};

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Ids that arrived while an earlier request with the same id was still being answered. */
  overlapping: string[];
  /** The most requests that were open (arrived, not yet closed) at once. */
  readonly mostOpen: number;
  /** When each request's connection closed (answered, or cut by the sender), in order. */
  closedAt: number[];
  /** Sets how the next requests are answered (by default: 204). */
  answerWith(answer: Answer): void;
  /** The secret to verify with (setWebhook's answer): for every path, or for requests to `path` (with its query). */
  verifyWith(secret: string, path?: string): void;
  /** Resolves once `predicate` holds for what was received, or rejects after `timeoutMs`. */
  until(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let answer: Answer = answers.ok;
  let verifier: Webhook | undefined;
  const verifiers = new Map<string, Webhook>();
  const received: Received[] = [];
  const overlapping: string[] = [];
  const inProgress = new Set<string>();
  const closedAt: number[] = [];
  let open = 0;
  let mostOpen = 0;
  const waiters: Array<() => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id']);
      if (inProgress.has(id)) overlapping.push(id);
      inProgress.add(id);
      let verified: Received['verified'];
      try {
        const by = verifiers.get(request.url ?? '') ?? verifier!;
        verified = by.verify(body, request.headers as Record<string, string>) as Received['verified'];
      } catch (error) {
        verified = { error: String(error) };
      }
      received.push({
        id,
        timestamp: String(request.headers['webhook-timestamp']),
        body,
        verified,
        at: Date.now(),
      });
      for (const wake of waiters.splice(0)) wake();
      mostOpen = Math.max(mostOpen, ++open);
      response.on('close', () => {
        inProgress.delete(id);
        open--;
        closedAt.push(Date.now());
      });
      void Promise.resolve(answer(request, response)).catch(() => response.destroy());
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    overlapping,
    get mostOpen() {
      return mostOpen;
    },
    closedAt,
    answerWith: (next) => void (answer = next),
    verifyWith(secret, path) {
      if (path === undefined) verifier = new Webhook(secret);
      else verifiers.set(path, new Webhook(secret));
    },
    async until(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `the receiver did not get what was expected in ${timeoutMs} ms (${received.length} received)`,
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
