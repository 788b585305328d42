// Where secret scanning stands in a request: before the handler of every operation the spec marks
// `x-secret-scanning: true` (after validation), and in every page form that mirrors one. An
// operation limited per bot has its admission settled first, which authenticates the key and
// counts the refusal (or answers its 401 or 429 instead), so that a bot posting its own key is told
// why. Then a key of this platform found in the text is handed to `onOwnKey` (revoked at once: it
// has left its owner's hands), and the 422 is thrown.
import type { preHandlerAsyncHookHandler } from 'fastify';
import { ProblemError } from '../spec/problems.js';
import { findingErrors, type Finding, type SecretScanner } from './scanner.js';

export interface SecretGuard {
  /**
   * Throws the 422 for a body holding a secret, after `settle` (the request's admission, if it has
   * one) and after revoking a key of ours found in it.
   */
  check(body: unknown, settle?: () => Promise<void>): Promise<void>;
  /** check() as a route's preHandler. */
  preHandler: preHandlerAsyncHookHandler;
}

export function secretDetected(finding: Finding): ProblemError {
  const fields = finding.pointers.map((pointer) => pointer.split('/').pop() || 'body');
  const where = fields.length > 1 ? `The ${fields.join(' and ')} together hold` : `The ${fields[0]} holds`;
  return new ProblemError(
    422,
    'secret_detected',
    `${where} ${finding.name}. Nothing was written: remove the secret and send the text again (and revoke that key where it was issued, since it has left your hands).`,
    { errors: findingErrors(finding), extensions: { secret_kind: finding.kind } },
  );
}

export function secretGuard(scanner: SecretScanner, onOwnKey: (key: string) => Promise<void>): SecretGuard {
  async function check(body: unknown, settle?: () => Promise<void>) {
    const finding = scanner.scanBody(body);
    if (!finding) return;
    await settle?.();
    if (finding.kind === 'bot_platform_api_key') await onOwnKey(finding.secret);
    throw secretDetected(finding);
  }
  return {
    check,
    preHandler: async (request) => {
      const admission = request.botAdmission;
      await check(request.body, admission && !admission.settled ? () => admission.settleAlone() : undefined);
    },
  };
}
