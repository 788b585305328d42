// The pages for people, as one plugin: what every page shares (forms, query scrubbing, caching
// headers, the document around a view, the stylesheet and icon), and each area's own pages, which
// it registers through WebPages from its pages.tsx. Pages read through the same service functions
// the API handlers call; no SQL here. Query values are checked against the same openapi.yaml
// schemas as the API's, and every failure is an HTML page (route config `html`: see
// http/errors.ts), never a JSON error. Each form is the API operation it mirrors, done from a
// browser: its origin check, limit, validation and text rules are that operation's (form()).
// Registered in the humans' scope of app.ts, so pages see the session.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { VNode } from 'preact';
import type { Config } from '../../config.js';
import { routeRateLimit, type RouteLimits } from '../admission/rate-limit-plugin.js';
import type { Clock } from '../db/clock.js';
import { conditionalGet } from '../http/conditional-get.js';
import { ProblemError, type FieldError } from '../spec/problems.js';
import { sameOriginGuard } from '../sessions/plugin.js';
import type { OperationId, RequestBody } from '../operations/handler-types.js';
import type { Me } from '../spec/schemas.js';
import {
  listOperations,
  privateCacheControl,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from '../spec/openapi.js';
import { requestValidator, routeSchema, type RouteCompilers, type Validator } from '../operations/routes.js';
import type { TextGuard } from '../text-checks/guard.js';
import { favicon, htmlDocument, stylesheet } from './document.js';
import { humanFieldErrors } from './field-messages.js';
import { viewerOf, type PageMeta } from './layout.js';

/** A form's fields as a browser sends them (URL-encoded): every value a string. */
export type Form = Record<string, string>;

/** A form as its handler gets it: the fields as sent, and the operation's body made of them, or its problems. */
export type Submitted<Body> = { fields: Form } & (
  { body: Body; errors?: undefined } | { body?: undefined; errors: FieldError[] }
);

/** What an area's pages.tsx registers its pages with. */
export interface WebPages {
  /** The scope to add GET routes to (with htmlRoute or getRoute as their options). */
  app: FastifyInstance;
  /** Options of a route that answers HTML. */
  htmlRoute: RouteShorthandOptions;
  /** A GET page: its ETag is a hash of the HTML sent, and a matching If-None-Match gets a 304. */
  getRoute: (schema?: Record<string, JsonSchema>) => RouteShorthandOptions;
  /** An operation's request schemas (params, querystring, body), for a page that takes the same. */
  schemaOf: (operationId: OperationId) => ReturnType<typeof routeSchema>;
  /** The values of one of the spec's enums (PostCategory, BotType). */
  enumOf: (schema: string) => string[];
  /** A spec schema's `pattern` (a page's field that is no operation's, checked by the same rule). */
  patternOf: (schema: string) => RegExp;
  /** A form that does the work of an API operation, under its rules (see form() below). */
  form: <Id extends OperationId>(
    path: string,
    operationId: Id,
    toBody: ((fields: Form) => unknown) | null,
    handle: (
      request: FastifyRequest,
      reply: FastifyReply,
      submitted: Submitted<RequestBody<Id>>,
    ) => Promise<FastifyReply>,
  ) => void;
  /** The signed-in person, as getMe answers; undefined when nobody is (or the user is gone). */
  signedInPerson: (request: FastifyRequest) => Promise<Me | undefined>;
  /** Sends a view as a whole page, with the header of whoever is signed in. */
  send: (
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    body: VNode,
    status?: number,
    meta?: PageMeta,
  ) => Promise<FastifyReply>;
  /** A list's page read from a cursor, or its first page when the cursor is not one of the list's. */
  orFirstPage: <T>(
    cursor: string | undefined,
    read: (cursor: string | undefined) => Promise<T>,
  ) => Promise<T>;
  /** A page's absolute address, for Open Graph and feeds. */
  absolute: (path: string) => string;
  /** The time pages show ages at (the test clock, or now). */
  now: () => Date;
}

export interface WebPagesOptions {
  config: Config;
  clock: Clock | undefined;
  spec: OpenApiDocument;
  compilers: RouteCompilers;
  /** The API's limits, which each form shares with the operation it mirrors; omitted, unlimited (benchmarks only). */
  limits?: RouteLimits;
  /** The signed-in person and their creator profile, or undefined when the user no longer exists (the auth area knows). */
  personOf: (userId: string) => Promise<Me | undefined>;
  /** Each area's pages. */
  areas: Array<(web: WebPages) => void>;
  /** Secret scanning, for the forms that mirror an operation marked `x-secret-scanning: true`. */
  textGuard?: TextGuard;
}

/**
 * Pages show who is signed in, so a shared cache must not keep them; browsers revalidate (ETag). A
 * page rendered for a signed-in person is no-one else's, and no cache keeps it at all (the spec's
 * PrivateCacheControl, as for the API's answers that depend on a credential).
 */
const pageCacheControl = 'private, no-cache';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The API operation a page form does the work of, and whose limit and validation it shares. */
    mirrors?: OperationId;
  }
}

/**
 * A page form that does what the API operation `operationId` does, and so goes through that
 * operation's rules: the same-origin check, then its limit (`x-rate-limit`, counted under the API's
 * key, so the two ways in share one count), then its request body, which `toBody` makes of the
 * fields, checked by the validator every API route uses (text made NFC, NUL refused, the schema).
 * The handler gets the fields as sent, and either the checked body or the problems found in it.
 * test/contract/page-forms.test.ts holds every form route to this.
 */
function pageForms(
  app: FastifyInstance,
  { compilers, limits, textGuard }: WebPagesOptions,
  operation: (id: string) => Operation,
  requireSameOrigin: (request: FastifyRequest) => void | Promise<void>,
): WebPages['form'] {
  const schemaOf = (id: OperationId) => routeSchema(operation(id));
  return (path, operationId, toBody, handle) => {
    type Body = RequestBody<typeof operationId>;
    const limit = operation(operationId).operation['x-rate-limit'];
    const schema = schemaOf(operationId).body;
    const scanned = operation(operationId).operation['x-secret-scanning'] === true;
    let validate: Validator | undefined;
    app.post(
      path,
      {
        config: {
          html: true,
          mirrors: operationId,
          ...(limits && limit ? { rateLimit: routeRateLimit(limit, limits), limitName: limit.action } : {}),
        },
        // Before the limit's hook (appended after these), so a cross-site post counts for nothing.
        onRequest: async (request) => requireSameOrigin(request),
      },
      async (request, reply) => {
        const fields = (request.body ?? {}) as Form;
        if (!toBody || !schema) return handle(request, reply, { fields, body: undefined as Body });
        const body = toBody(fields);
        validate ??= requestValidator(compilers, 'body', schema);
        if (validate(body)) {
          // Hidden text or a secret in a form is refused as in the operation (the 422 page names the field and kind); its labels wait on the request.
          if (scanned && textGuard) request.textLabels = await textGuard.check(body);
          return handle(request, reply, { fields, body: body as Body });
        }
        return handle(request, reply, { fields, errors: humanFieldErrors(validate.errors ?? []) });
      },
    );
  };
}

/**
 * An HTML form sends an empty value for a field left blank (the category filter's "all"): not
 * given. And a page is read by people, who edit addresses: a query value the page cannot take
 * (`/?sort=bogus`) is left out, so the page shows its default instead of an error.
 */
function dropUnusableQueryValues(app: FastifyInstance, compilers: WebPagesOptions['compilers']) {
  const queryValueValidators = new Map<JsonSchema, Validator>();
  const takes = (schema: JsonSchema, value: unknown) => {
    let validate = queryValueValidators.get(schema);
    if (!validate) {
      validate = requestValidator(compilers, 'querystring', {
        type: 'object',
        properties: { value: schema },
      });
      queryValueValidators.set(schema, validate);
    }
    return validate({ value });
  };
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown>;
    // Pages only: an API operation in this scope refuses what it cannot take, as every operation does.
    const properties = request.routeOptions.config.html
      ? (request.routeOptions.schema?.querystring as { properties?: Record<string, JsonSchema> } | undefined)
          ?.properties
      : undefined;
    for (const [name, value] of Object.entries(query)) {
      const schema = properties?.[name];
      if (value === '' || (schema && !takes(schema, value))) delete query[name];
    }
  });
}

/** The favicon and the stylesheet, kept by browsers. */
function staticAssets(app: FastifyInstance, htmlRoute: RouteShorthandOptions) {
  app.get('/favicon.svg', htmlRoute, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(favicon),
  );
  // Browsers and crawlers ask for /favicon.ico whatever the page names.
  app.get('/favicon.ico', htmlRoute, async (_request, reply) => reply.redirect('/favicon.svg', 301));
  app.get('/assets/style.css', htmlRoute, async (request, reply) => {
    const { css, etag } = stylesheet();
    reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/css; charset=utf-8').send(css);
  });
}

export default async function webPages(app: FastifyInstance, options: WebPagesOptions) {
  const { config, clock, spec, compilers, personOf, areas } = options;
  const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
  const operation = (id: string): Operation => operations.get(id)!;
  const schemaOf = (id: OperationId) => routeSchema(operation(id));
  const requireSameOrigin = sameOriginGuard(config);

  // Forms arrive URL-encoded, as browsers send them, and in no other way: in this scope JSON (and
  // anything else) is a 415, so a form's fields are always strings (a missing body, no fields).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const form = pageForms(app, options, operation, requireSameOrigin);

  // Set first, so that error pages shown to a signed-in person are private too.
  const signedInCacheControl = privateCacheControl(spec);
  app.addHook('onRequest', async (request, reply) => {
    if (request.session.userId) reply.header('cache-control', signedInCacheControl);
  });

  dropUnusableQueryValues(app, compilers);

  const signedInPerson = async (request: FastifyRequest) => {
    const userId = request.session.userId;
    return userId ? personOf(userId) : undefined;
  };

  const htmlRoute = { config: { html: true } } satisfies RouteShorthandOptions;
  const web: WebPages = {
    app,
    htmlRoute,
    getRoute: (schema) => ({ ...htmlRoute, onSend: conditionalGet, ...(schema ? { schema } : {}) }),
    schemaOf,
    enumOf: (name) => (spec.components?.schemas?.[name] as { enum: string[] }).enum,
    patternOf: (name) => new RegExp((spec.components?.schemas?.[name] as { pattern: string }).pattern),
    form,
    signedInPerson,
    async send(request, reply, title, body, status = 200, meta) {
      const userId = request.session.userId;
      const viewer = viewerOf(await signedInPerson(request));
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .header('cache-control', userId ? signedInCacheControl : pageCacheControl)
        .header('vary', 'cookie, accept')
        .send(htmlDocument(title, viewer, body, meta));
    },
    async orFirstPage(cursor, read) {
      try {
        return await read(cursor);
      } catch (error) {
        if (cursor !== undefined && error instanceof ProblemError && error.code === 'invalid_cursor')
          return read(undefined);
        throw error;
      }
    },
    absolute: (path) => `${config.publicUrl}${path}`,
    now: () => clock?.() ?? new Date(),
  };

  staticAssets(app, htmlRoute);
  for (const area of areas) area(web);
}
