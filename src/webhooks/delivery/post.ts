// One delivery attempt: a POST to the webhook's URL, through the address policy, with a deadline
// for the whole exchange, no redirect followed and at most 64 KiB of the answer read.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { policedLookup, refusedAddress } from '../address-policy.js';

/** The most of an answer that is read; the rest is not waited for. */
const maxAnswerBytes = 64 * 1024;

export type AttemptOutcome =
  | { delivered: true; status: number }
  /** No 2xx: the status of the answer (a redirect, 4xx, 5xx), or why none came. */
  | { delivered: false; status: number | null; error: string | null };

export interface AttemptOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Ends the attempt early (a server shutting down); it then counts as not made. */
  signal?: AbortSignal;
}

export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: AttemptOptions,
): Promise<AttemptOutcome> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // An IP literal is never looked up, so the policy is applied to it here.
  const refused = isIP(host) ? refusedAddress(host, options.allowPrivate) : undefined;
  if (refused) return { delivered: false, status: null, error: `refused: ${refused}` };
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  try {
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(target, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'bot-platform-webhooks/1',
        },
        lookup: policedLookup(options.allowPrivate),
        signal,
      });
      outgoing.on('response', resolve);
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    await readAtMost(answer, maxAnswerBytes);
    const status = answer.statusCode ?? 0;
    if (status >= 200 && status < 300) return { delivered: true, status };
    return {
      delivered: false,
      status,
      error: status >= 300 && status < 400 ? 'redirect, not followed' : null,
    };
  } catch (error) {
    return { delivered: false, status: null, error: describe(error, deadline) };
  }
}

/** Reads the answer up to `limit` bytes, then lets the rest go (the connection is closed). */
async function readAtMost(answer: IncomingMessage, limit: number): Promise<void> {
  let read = 0;
  for await (const chunk of answer) {
    read += (chunk as Buffer).length;
    if (read >= limit) break;
  }
  answer.destroy();
}

function describe(error: unknown, deadline: AbortSignal): string {
  if (deadline.aborted) return 'timeout: no answer in time';
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'ADDRESS_REFUSED') return `refused: ${message}`;
  if (code === 'ABORT_ERR') return 'aborted: the server was shutting down';
  return [code, message].filter(Boolean).join(': ').slice(0, 300) || 'the request failed';
}
