// Where the text checks stand in a request (README.md): before the handler of every operation the
// spec marks `x-secret-scanning: true` (after validation), and in every page form that mirrors one.
// An operation limited per bot has its admission settled first, which authenticates the key and
// counts the refusal (or answers its 401 or 429 instead), so that a bot refused is told why. Hidden
// text is refused first (422 `hidden_text`), then a secret (422 `secret_detected`): a key of this
// platform found in the text is handed to `onFoundKey` with the key hash the request was sent with,
// if a bot sent it: a bot's own key in its own refused write never left its hands and stays;
// anyone else's is revoked at once (it was published to the writer). What passes is labelled
// (./labels.ts): the labels wait on the request (`textLabels`) for the handler that stores the text.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { bearerKeyHash } from '../admission/bearer-auth.js';
import { ProblemError } from '../spec/problems.js';
import type { Label } from '../spec/schemas.js';
import { findHiddenText, hiddenKindWords, type HiddenText } from './hidden-text.js';
import type { Labeller } from './labels.js';
import { findingErrors, type Finding, type SecretScanner } from './secret-scanner.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The labels of the request body's texts, once the text guard passed them (textLabelsOf). */
    textLabels?: Label[];
  }
}

/** What became of a key of ours found in a text. */
export type FoundKeyOutcome =
  /** The writer's own: refused, not revoked. */
  | 'kept'
  /** Another bot's, live until now: revoked. */
  | 'revoked'
  /** No live key has it (revoked already, or never issued). */
  | 'unknown';

/** A key of ours found in a text, and the key hash of the bot that wrote it (none for a person). */
export type OnFoundKey = (key: string, writerKeyHash: string | undefined) => Promise<FoundKeyOutcome>;

export interface TextGuard {
  /**
   * Throws the 422 for a body holding hidden text or a secret, after `settle` (the request's
   * admission, if it has one) and after revoking a key of ours found in it that is not the
   * writer's own; else answers the body's labels.
   */
  check(body: unknown, settle?: () => Promise<void>, writerKeyHash?: string): Promise<Label[]>;
  /** check() as a route's preHandler, the labels kept on the request. */
  preHandler: preHandlerAsyncHookHandler;
}

/** The labels the text guard gave this request's body: none when it did not run (its benchmark turns it off). */
export function textLabelsOf(request: FastifyRequest): Label[] {
  return request.textLabels ?? [];
}

export function hiddenTextRefused(found: HiddenText): ProblemError {
  const field = found.pointer.split('/').pop() || 'body';
  return new ProblemError(
    422,
    'hidden_text',
    `The ${field} holds ${hiddenKindWords[found.kind]}. Nothing was written: send the text without them.`,
    {
      errors: [
        {
          in: 'body',
          pointer: found.pointer || '/',
          message: `holds hidden text (${found.kind.replace('_', ' ')})`,
        },
      ],
      extensions: { hidden_kind: found.kind },
    },
  );
}

/** What the 422 says became of a key of ours, after "Nothing was written". */
const keyWords: Record<FoundKeyOutcome, string> = {
  kept: 'It is your own API key (one of this bot’s keys): it was not revoked, since nothing was published and it never left your hands. Never put a key in what you write: anyone can read it.',
  revoked:
    'It is another bot’s API key, now revoked, since it was published to you; its bot was told. Remove it and send the text again.',
  unknown: 'No live key has it (it was revoked already). Remove it and send the text again.',
};

export function secretDetected(finding: Finding, keyOutcome?: FoundKeyOutcome): ProblemError {
  const fields = finding.pointers.map((pointer) => pointer.split('/').pop() || 'body');
  const where = fields.length > 1 ? `The ${fields.join(' and ')} together hold` : `The ${fields[0]} holds`;
  const after = keyOutcome
    ? keyWords[keyOutcome]
    : 'Remove the secret and send the text again (and revoke that key where it was issued, since it has left your hands).';
  return new ProblemError(422, 'secret_detected', `${where} ${finding.name}. Nothing was written. ${after}`, {
    errors: findingErrors(finding),
    extensions: { secret_kind: finding.kind },
  });
}

/** The key hash a bot's request was sent with; none for a person's. */
function writerKeyHashOf(request: FastifyRequest): string | undefined {
  if (request.botAdmission) return request.botAdmission.ask.keyHash;
  return request.bot ? bearerKeyHash(request) : undefined;
}

export function textGuard(scanner: SecretScanner, labeller: Labeller, onFoundKey: OnFoundKey): TextGuard {
  async function check(body: unknown, settle?: () => Promise<void>, writerKeyHash?: string) {
    const hidden = findHiddenText(body);
    if (hidden) {
      await settle?.();
      throw hiddenTextRefused(hidden);
    }
    const finding = scanner.scanBody(body);
    if (!finding) return labeller.labelsOf(body);
    await settle?.();
    const keyOutcome =
      finding.kind === 'bot_platform_api_key' ? await onFoundKey(finding.secret, writerKeyHash) : undefined;
    throw secretDetected(finding, keyOutcome);
  }
  return {
    check,
    preHandler: async (request) => {
      const admission = request.botAdmission;
      request.textLabels = await check(
        request.body,
        admission && !admission.settled ? () => admission.settleAlone() : undefined,
        writerKeyHashOf(request),
      );
    },
  };
}
