// RFC 9457 problem documents: the one shape every error response of the API takes. Handlers throw
// a ProblemError; the error handler (platform/http/errors.ts) writes it.
import type { components } from '../../../generated/openapi.js';

export type ProblemCode = components['schemas']['ProblemCode'];
export type FieldError = components['schemas']['FieldError'];
type Problem = components['schemas']['Problem'];

const titles: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  500: 'Internal server error',
  501: 'Not implemented',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

export interface ProblemOptions {
  errors?: FieldError[];
  /** Extension members, such as the 429's `limit` and `retry_after_seconds`. */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string | number>;
  /** On a 429: which limit refused (`posts`, `posts-per-ip`, `sign-in-mails`, ...), for metrics; never sent. */
  limitName?: string;
  /** The client hung up mid-request: logged as such, never as an outage. */
  clientGone?: boolean;
}

export class ProblemError extends Error {
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string | number>;
  readonly limitName: string | undefined;
  readonly clientGone: boolean;

  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    options: ProblemOptions = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.errors = options.errors;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
    this.limitName = options.limitName;
    this.clientGone = options.clientGone ?? false;
  }

  body(requestId: string): Problem {
    return {
      type: `urn:bot-platform:problem:${this.code}`,
      title: this.code === 'validation_failed' ? 'Validation failed' : (titles[this.status] ?? 'Error'),
      status: this.status,
      detail: this.detail,
      code: this.code,
      request_id: requestId,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extensions,
    };
  }
}

/** A 400 naming `errors`; `total` is how many were found when only the first ones are listed. */
export function validationFailed(errors: FieldError[], total = errors.length): ProblemError {
  const detail =
    total === 1
      ? `${describe(errors[0]!)}.`
      : total > errors.length
        ? `The request has ${total} problems; the first ${errors.length} are listed.`
        : `The request has ${total} problems.`;
  return new ProblemError(400, 'validation_failed', detail, { errors });
}

function describe(error: FieldError): string {
  return error.pointer ? `${error.in} ${error.pointer}: ${error.message}` : `${error.in}: ${error.message}`;
}

export function notFound(detail: string): ProblemError {
  return new ProblemError(404, 'not_found', detail);
}

/** A 503 that tells the client to retry in a few seconds (the database or the limiter store is down). */
export function unavailable(detail: string, cause?: unknown): ProblemError {
  const problem = new ProblemError(503, 'unavailable', detail, { headers: { 'retry-after': 5 } });
  if (cause !== undefined) problem.cause = cause;
  return problem;
}
