// The one error path: thrown ProblemErrors, schema validation failures, Fastify's own errors
// (malformed JSON, body too large, wrong content type), unknown routes, database outages and bugs
// all leave as the same application/problem+json document with the request's id. Internals
// (stack traces, SQL, driver messages) are logged, never sent.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ErrorObject } from 'ajv';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ProblemError, unavailable, validationFailed, type FieldError } from '../spec/problems.js';

/** Postgres's foreign_key_violation. */
const foreignKeyViolation = '23503';

const partNames = { body: 'body', querystring: 'query', params: 'path', headers: 'header' } as const;

/**
 * A 400 lists at most this many field errors, each pointer cut to `maxPointerLength` characters:
 * however many bad fields a request sends (5,000 unknown properties, a 60 KB property name), the
 * answer stays under 4 KB, so a small request cannot buy a large response.
 */
const maxFieldErrors = 20;
const maxPointerLength = 64;

/**
 * Renders the HTML page a person's browser gets instead of a problem document (src/platform/web/):
 * on the routes that answer HTML (route config `html`), and for unknown paths outside /api/ that a
 * browser asks for as HTML.
 */
export type HtmlErrorRenderer = (problem: ProblemError, request: FastifyRequest) => Promise<string>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route that answers people with HTML: its errors are HTML pages too, not problem documents. */
    html?: boolean;
  }
}

export interface ErrorsOptions {
  renderHtmlError?: HtmlErrorRenderer;
  /**
   * What must be settled before a failed request is answered, and may answer it instead (a bot's
   * admission: its 401 or 429 wins over the 400 that failed it; see admission/settle-on-error.ts).
   */
  settleFirst?: (error: FastifyError, request: FastifyRequest) => Promise<FastifyError>;
}

export default fp<ErrorsOptions>(
  async function errors(app: FastifyInstance, { renderHtmlError, settleFirst }) {
    const send = async (reply: FastifyReply, request: FastifyRequest, problem: ProblemError) =>
      renderHtmlError && wantsHtml(request)
        ? reply
            .code(problem.status)
            .headers(problem.headers)
            .type('text/html; charset=utf-8')
            .send(await renderHtmlError(problem, request))
        : sendProblem(reply, request, problem);

    app.setErrorHandler(async (failure: FastifyError, request, reply) => {
      const error = settleFirst ? await settleFirst(failure, request) : failure;
      const problem = problemFor(error, request);
      // A bug needs its stack; an outage or a shutdown is worth a warning; a 501 is expected.
      if (problem.code === 'internal') request.log.error({ err: error }, 'request failed');
      else if (problem.status >= 500)
        request.log.warn({ err: error, problem: problem.code }, 'request refused');
      else if (problem.clientGone) request.log.info('the client closed the connection mid-request');
      return send(reply, request, problem);
    });

    // A client that hung up while authentication or a limit was being checked: its body will never
    // come (the stream's error was emitted before anyone listened), so stop here rather than wait.
    app.addHook('preParsing', async (request) => {
      if (request.raw.readableAborted) throw clientGone();
    });

    app.setNotFoundHandler(async (request, reply) =>
      send(
        reply,
        request,
        new ProblemError(
          404,
          'not_found',
          `No operation matches ${request.method} ${request.url.split('?')[0]}.`,
        ),
      ),
    );
  },
  { name: 'errors' },
);

/** A page's request, or a browser asking for HTML at a path outside the API. */
function wantsHtml(request: FastifyRequest): boolean {
  if (request.routeOptions.config?.html) return true;
  return (
    request.is404 && !request.url.startsWith('/api/') && (request.headers.accept ?? '').includes('text/html')
  );
}

/** The 400 for a body that failed its schema (Ajv's errors), as the error handler words it. */
export function bodyValidationProblem(errors: ErrorObject[]): ProblemError {
  const found = fieldErrors('body', errors);
  return validationFailed(found.slice(0, maxFieldErrors), found.length);
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest, problem: ProblemError) {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/problem+json; charset=utf-8')
    .send(problem.body(request.id));
}

function clientGone(): ProblemError {
  return new ProblemError(
    400,
    'malformed_request',
    'The client closed the connection before sending the whole request.',
    { clientGone: true },
  );
}

/** The problem an error is answered with (an error handler of a scope that words it otherwise, as /mcp does, starts here). */
export function problemFor(error: FastifyError, request: FastifyRequest): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error.validation) {
    const part = partNames[error.validationContext as keyof typeof partNames] ?? 'body';
    // A path that names something that cannot exist (a malformed id) is simply not found; it says
    // which part of the path could not be an id, so a caller that sent a name or a title sees why.
    if (part === 'path') {
      const notAnId = error.validation.find(
        (failure) => failure.keyword === 'format' && failure.params.format === 'uuid',
      );
      const data = (notAnId as { data?: unknown } | undefined)?.data;
      const segment = typeof data === 'string' ? data : undefined;
      return new ProblemError(
        404,
        'not_found',
        segment
          ? `Nothing exists at ${request.url.split('?')[0]}: ${segment.slice(0, 64)} is not an id. Ids are UUIDs, as the API gave them (0b9f8c7d-6e5a-4b3c-8d2e-1f0a9b8c7d6e).`
          : `Nothing exists at ${request.url.split('?')[0]}.`,
      );
    }
    const found = fieldErrors(part, error.validation as ErrorObject[]);
    return validationFailed(found.slice(0, maxFieldErrors), found.length);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError(400, 'malformed_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError(
        413,
        'payload_too_large',
        `The request body is larger than ${request.server.initialConfig.bodyLimit} bytes.`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // A page's form takes what a browser's form sends; the API takes JSON.
      return new ProblemError(
        415,
        'unsupported_media_type',
        request.routeOptions.config?.html
          ? 'Send the form as application/x-www-form-urlencoded, as a browser does.'
          : 'Send the request body as application/json.',
      );
  }
  // The client hung up while its body was being read: nobody to answer, and not a database outage.
  if (request.raw.readableAborted || (error.code === 'ECONNRESET' && error.message === 'aborted'))
    return clientGone();
  if (isDatabaseUnavailable(error)) {
    return unavailable('The database is unavailable. Retry shortly.');
  }
  // A write that refers to a row deleted while it ran (a comment on a post its author deleted a
  // moment before): its statement wrote nothing.
  if (error.code === foreignKeyViolation) {
    return new ProblemError(
      409,
      'conflict',
      'Something this request refers to was deleted while it ran; nothing was written.',
    );
  }
  // Fastify's remaining client errors (a bad content-length, prototype poisoning, ...).
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ProblemError(400, 'malformed_request', 'The request could not be read.');
  }
  return new ProblemError(500, 'internal', 'Something went wrong on our side.');
}

const missing = 'is required';

/** Keywords that name a property: the pointer goes to the property, the message says what is wrong. */
const propertyKeywords: Partial<Record<string, { param: string; message: string }>> = {
  required: { param: 'missingProperty', message: missing },
  additionalProperties: { param: 'additionalProperty', message: 'is not a known property' },
  propertyNames: { param: 'propertyName', message: 'is not a known property' },
};

function fieldErrors(part: FieldError['in'], errors: ErrorObject[]): FieldError[] {
  // A bad property name is reported twice by Ajv: by the name's own schema and by propertyNames.
  const reported = errors.filter(
    (error) => error.propertyName === undefined || error.keyword === 'propertyNames',
  );
  // One problem per location: the first says it, but a value outside an enum is told the values it
  // may take, whatever else it fails (a number where `up` belongs fails `type` first).
  const enumAt = new Set(
    reported.filter((error) => error.keyword === 'enum').map((error) => error.instancePath),
  );
  const told = reported.filter((error) => error.keyword === 'enum' || !enumAt.has(error.instancePath));
  const byPointer = new Map<string, FieldError>();
  for (const error of told.map(toFieldError)) {
    const pointer =
      error.pointer.length > maxPointerLength
        ? `${error.pointer.slice(0, maxPointerLength - 1)}…`
        : error.pointer;
    if (!byPointer.has(pointer)) byPointer.set(pointer, { ...error, pointer });
  }
  // What was sent and is wrong first, what is missing after: of 56 unanswered statements and one
  // wrong value, the 20 a 400 lists still name the wrong value.
  const all = [...byPointer.values()];
  return [
    ...all.filter((error) => error.message !== missing),
    ...all.filter((error) => error.message === missing),
  ];

  function toFieldError(error: ErrorObject): FieldError {
    const property = propertyKeywords[error.keyword];
    if (property) {
      const name = error.params[property.param] as string;
      return { in: part, pointer: `${error.instancePath}/${escape(name)}`, message: property.message };
    }
    if (error.keyword === 'enum') {
      return {
        in: part,
        pointer: error.instancePath,
        message: `must be one of ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    }
    if (error.keyword === 'pattern')
      return { in: part, pointer: error.instancePath, message: patternWords(error) };
    if (error.keyword === 'format' && formatWords[error.params.format as string]) {
      return { in: part, pointer: error.instancePath, message: formatWords[error.params.format as string]! };
    }
    if (error.keyword === 'type' && error.instancePath === '' && part === 'body') {
      return { in: part, pointer: '', message: 'must be a JSON object' };
    }
    return {
      in: part,
      pointer: error.instancePath,
      message: boundWords(error) ?? error.message ?? 'is invalid',
    };
  }
}

/**
 * A length, count, size or type refused, said as what to send: the field's whole rule when its
 * schema words one (`x-pattern-message`: "2-40 characters of ..."), else the bound in words.
 */
function boundWords(error: ErrorObject): string | undefined {
  const limit = error.params.limit as number;
  const rule = (error.parentSchema as { 'x-pattern-message'?: string } | undefined)?.['x-pattern-message'];
  const characters = (n: number) => (n === 1 ? '1 character' : `${n.toLocaleString('en')} characters`);
  const items = (n: number) => (n === 1 ? '1 item' : `${n.toLocaleString('en')} items`);
  switch (error.keyword) {
    case 'minLength':
      return rule ?? (limit === 1 ? 'must not be empty' : `must be at least ${characters(limit)} long`);
    case 'maxLength':
      return rule ?? `must be at most ${characters(limit)} long`;
    case 'minItems':
      return `must hold at least ${items(limit)}`;
    case 'maxItems':
      return `must hold at most ${items(limit)}`;
    case 'minimum':
      return `must be ${limit} or more`;
    case 'maximum':
      return `must be ${limit} or less`;
    case 'type': {
      const types = [error.params.type as string | string[]].flat().filter((type) => type !== 'null');
      const named = types.map(
        (type) =>
          ({
            string: 'a string',
            integer: 'a whole number',
            number: 'a number',
            boolean: 'true or false',
            object: 'a JSON object',
            array: 'a JSON array',
          })[type] ?? type,
      );
      return `must be ${named.join(' or ')}`;
    }
    default:
      return undefined;
  }
}

/** A pattern's rule in words: the spec's text rules, or the schema's `x-pattern-message`; never the regex. */
export function patternWords(error: Pick<ErrorObject, 'params' | 'parentSchema'>): string {
  const pattern = error.params.pattern as string;
  const words = (error.parentSchema as { 'x-pattern-message'?: string } | undefined)?.['x-pattern-message'];
  return (
    textRules[pattern] ??
    words ??
    'is not in the form this field takes (its description in openapi.yaml says it)'
  );
}

/** The formats the spec's schemas name, said as what to send. */
const formatWords: Record<string, string> = {
  uuid: 'must be an id: a UUID such as 0b9f8c7d-6e5a-4b3c-8d2e-1f0a9b8c7d6e, as the API gave it',
  'date-time':
    'must be a date and time in RFC 3339, such as 2026-12-04T00:00:00Z: a real day, no leap second (:60), no later than the year 9999',
  date: 'must be a date such as 2026-12-04',
  email: 'must be an e-mail address',
  uri: 'must be an absolute URL, such as https://example.com/hook',
  'uri-reference': 'must be a URL or a path',
};

/** The spec's text rules (openapi.yaml, "Text"), said in words rather than as their patterns. */
const textRules: Record<string, string> = {
  '^[^\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u180E\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\uFEFF\\uFFF9-\\uFFFB]+$':
    'must not contain control, zero-width, line-separator or bidirectional-override characters',
};

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
