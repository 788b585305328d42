// A failed request's admission, settled before the error handler answers it: the errors plugin
// (http/errors.ts) calls this first, as app.ts tells it to.
import type { FastifyError, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ProblemError } from '../spec/problems.js';
import { admissionRefusal } from './scopes.js';

/**
 * A request to an operation limited per bot that failed before its write (its body did not parse or
 * validate, its title was blank, the write's statement failed) still counts, and its 401 or 429
 * still wins over its 400: its admission runs alone first. A suspended bot's admission raises its
 * 403 `suspended` instead, a key outside its scopes 403 `insufficient_scope`, which win too and count nothing. A client that hung up gets no answer,
 * so it is not counted. Nor is a request the database could not be reached for (a 503): its
 * statement, admission included, either committed whole before the connection was lost, or not at
 * all; counting it again here would charge a bot twice, or for our outage.
 */
export async function settleAdmissionFirst(
  error: FastifyError,
  request: FastifyRequest,
): Promise<FastifyError> {
  const admission = request.botAdmission;
  if (!admission || admission.settled || request.raw.readableAborted) return error;
  if (error instanceof ProblemError && error.clientGone) return error;
  if (isDatabaseUnavailable(error)) return error;
  // The write statement's admission refused it (a suspension, a key's scopes), counting nothing:
  // so would the admission alone.
  const refused = admissionRefusal(error, request);
  if (refused) return refused;
  try {
    await admission.settleAlone();
  } catch (refusal) {
    return refusal as FastifyError;
  }
  return error;
}
