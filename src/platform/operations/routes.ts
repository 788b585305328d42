// Registers one Fastify route per operation of openapi.yaml, keyed by operationId: the method and
// path, the request validation schemas, the response serializers, conditional GETs, the security
// requirements and which answers are private (Cache-Control) all come from the spec.
// Bodies are validated strictly (no coercion, no stripping: an unknown property is a 400); path and
// query values are converted from their string form only when they are plain numerals.
import type { FastifyInstance, LogLevel, onRequestAsyncHookHandler } from 'fastify';
import type { KeywordDefinition, ValidateFunction } from 'ajv';
import fp from 'fastify-plugin';
import type { TextGuard } from '../text-checks/guard.js';
import { conditionalGet } from '../http/conditional-get.js';
import {
  createSchemaCompiler,
  createSerializerCompiler,
  hasEntityTag,
  hasPrivateAnswers,
  listOperations,
  privateCacheControl,
  requiredSecuritySchemes,
  successSchemas,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
  type RateLimitExtension,
  type SchemaCompiler,
  type SerializerCompiler,
} from '../spec/openapi.js';
import type { HandlerMap } from './handler-types.js';
import { routeRateLimit, type RouteLimits } from '../admission/rate-limit-plugin.js';
import { operationScope, type ApiKeyScope } from '../admission/scopes.js';
import type { CachedRouteHooks } from '../response-cache/plugin.js';

export interface OpenApiRoutesOptions {
  spec: OpenApiDocument;
  handlers: HandlerMap;
  /** One onRequest hook per security scheme of the spec; it authenticates or throws. */
  security: Record<string, onRequestAsyncHookHandler>;
  /** Limits for operations with `x-rate-limit`; omitted, nothing is limited (benchmarks only). */
  limits?: RouteLimits;
  /**
   * The hook of an operation limited per bot (see botAdmission), in place of its security hook and
   * the limiter plugin's: it leaves the admission to the operation's write statement.
   */
  botAdmission?: (
    extension: RateLimitExtension,
    scope: ApiKeyScope | undefined,
  ) => onRequestAsyncHookHandler | undefined;
  /** The compilers of every scope that registers routes of this spec (see routeCompilers). */
  compilers: RouteCompilers;
  /** Which operations to register in this scope (default: all); every handler must still be for one of the spec's. */
  include?: (op: Operation) => boolean;
  /** Operations whose pages may be served from memory, by operationId (see platform/response-cache/plugin.ts). */
  cached?: Partial<Record<keyof HandlerMap, CachedRouteHooks>>;
  /** Operations logged at a level of their own, by operationId (health probes: only at debug). */
  logLevels?: Partial<Record<keyof HandlerMap, LogLevel>>;
  /**
   * Operations that relay another protocol's messages (callMcp's JSON-RPC): their 2xx bodies are
   * written by JSON.stringify (their schema documents them but does not shape them), and the route
   * is marked `relay` (the requests it relays to other routes do their own writing).
   */
  relayed?: ReadonlyArray<keyof HandlerMap>;
  /** The text checks (hidden text, secrets, labels), before the handler of every operation marked `x-secret-scanning: true`. */
  textGuard?: TextGuard;
}

export interface RouteCompilers {
  bodies: SchemaCompiler;
  parameters: SchemaCompiler;
  serializers: SerializerCompiler;
}

/**
 * The validator and serializer compilers for a spec, made once per app and shared by its route
 * scopes: each compiles the component schemas it meets once, so a second set would compile them
 * all again at start-up. `keywords` validate the spec's own `x-` schema extensions.
 */
export function routeCompilers(spec: OpenApiDocument, keywords: KeywordDefinition[] = []): RouteCompilers {
  // The spec's schemas are linted in CI (`npm run lint:spec`), so they are not checked against the
  // JSON Schema meta-schema again at every start (compiling it costs ~100 ms).
  return {
    bodies: createSchemaCompiler(spec, { coerceTypes: false, strict: true, validateSchema: false }, keywords),
    parameters: createSchemaCompiler(
      spec,
      { coerceTypes: false, useDefaults: true, strict: true, validateSchema: false },
      keywords,
    ),
    serializers: createSerializerCompiler(spec),
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: string;
  }
}

export default fp<OpenApiRoutesOptions>(
  async function openapiRoutes(
    app: FastifyInstance,
    {
      spec,
      handlers,
      security,
      limits,
      botAdmission,
      compilers,
      include = () => true,
      cached = {},
      logLevels = {},
      relayed = [],
      textGuard,
    },
  ) {
    const { serializers } = compilers;
    // Each validator is compiled on its route's first request, so start-up compiles none.
    app.setValidatorCompiler(({ schema, httpPart }) =>
      compiledOnFirstUse(() => requestValidator(compilers, httpPart, schema as JsonSchema)),
    );

    // Set first, so that every answer of a private operation carries it, a refused credential's too.
    const cacheControl = privateCacheControl(spec);
    const keepPrivate: onRequestAsyncHookHandler = async (_request, reply) => {
      reply.header('cache-control', cacheControl);
    };

    const operations = listOperations(spec);
    const unknown = Object.keys(handlers).filter((id) => !operations.some((op) => op.operationId === id));
    if (unknown.length > 0)
      throw new Error(`Handlers without an operation in openapi.yaml: ${unknown.join(', ')}`);

    for (const op of operations.filter(include)) {
      const handler = handlers[op.operationId as keyof HandlerMap] as
        | ((
            input: unknown,
          ) => Promise<{ status: number; body?: unknown; headers?: Record<string, string | number> }>)
        | undefined;
      if (!handler) throw new Error(`openapi.yaml operation ${op.operationId} has no handler`);

      // Handlers see header parameters under the spec's names; Fastify lower-cases them.
      const headerNames = op.parameters.filter((p) => p.in === 'header').map((p) => p.name);
      const serializerFor = relayed.includes(op.operationId as keyof HandlerMap)
        ? () => relayedJson
        : lazySerializers(successSchemas(spec, op), serializers);
      const limited = op.operation['x-rate-limit'];
      const cache = cached[op.operationId as keyof HandlerMap];
      const scope = operationScope(spec, op);
      const admission = limited && botAdmission?.(limited, scope);
      if (admission && securitySchemes(op, spec).join() !== 'bearerAuth')
        throw new Error(`${op.operationId}: an operation limited per bot must be secured by bearerAuth`);
      const logLevel = logLevels[op.operationId as keyof HandlerMap];
      app.route({
        method: op.method.toUpperCase(),
        url: op.path.replace(/\{([^}]+)\}/g, ':$1'),
        ...(logLevel ? { logLevel } : {}),
        config: {
          operationId: op.operationId,
          ...(relayed.includes(op.operationId as keyof HandlerMap) ? { relay: true } : {}),
          ...(op.operation['x-while-suspended'] === 'allowed' ? { allowedWhileSuspended: true } : {}),
          ...(scope ? { scope } : {}),
          ...(op.operation['x-while-read-only'] === 'allowed' ? { allowedWhileReadOnly: true } : {}),
          ...(limits && limited && !admission
            ? { rateLimit: routeRateLimit(limited, limits), limitName: limited.action }
            : {}),
        },
        schema: routeSchema(op),
        // Authentication; the limiter plugin appends the operation's limit, unless its admission
        // does both at once.
        onRequest: [
          ...(cache ? [cache.onRequest] : []),
          ...(hasPrivateAnswers(spec, op) ? [keepPrivate] : []),
          ...(admission ? [admission] : securityHooks(op, spec, security)),
          ...optionalBearer(op, spec, security),
        ],
        // After validation; a limited operation's admission is settled before the 422 (guard.ts).
        ...(textGuard && op.operation['x-secret-scanning'] ? { preHandler: textGuard.preHandler } : {}),
        onSend: [...(cache ? [cache.onSend] : []), ...(hasEntityTag(spec, op) ? [conditionalGet] : [])],
        ...(cache ? { onResponse: cache.onResponse, onRequestAbort: cache.onRequestAbort } : {}),
        async handler(request, reply) {
          const result = await handler({
            params: request.params,
            query: request.query,
            headers: Object.fromEntries(
              headerNames.map((name) => [name, request.headers[name.toLowerCase()]]),
            ),
            body: request.body,
            request,
            reply,
          });
          // A stream (text/event-stream) has taken the reply over and answers by itself.
          if (reply.sent) return reply;
          reply.code(result.status);
          if (result.headers) reply.headers(result.headers);
          const serialize = serializerFor(result.status);
          if (!serialize || result.body === undefined) return reply.send(result.body);
          // Serialized here, not by a reply.serializer(): that would stay on the reply and be
          // handed the problem document of an error raised later, or by the serializer itself.
          return reply.type('application/json; charset=utf-8').send(serialize(result.body));
        },
      });
    }
  },
  { name: 'openapi-routes', dependencies: ['errors'] },
);

/** A relayed answer: the JSON another protocol's library wrote (text or bytes), or a value to write as JSON. */
function relayedJson(body: unknown): string | Buffer {
  return typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
}

/**
 * The validator of one part of a request (`body`, or path, query and header parameters), as every
 * route of the spec and every page form that mirrors an operation checks it: text made NFC and the
 * NUL character refused, then the part's schema (path, query and header values converted only when
 * they are plain numerals). Its `errors` are Ajv's.
 */
export function requestValidator(
  compilers: RouteCompilers,
  httpPart: string | undefined,
  schema: JsonSchema,
) {
  return withoutNulCharacters(
    httpPart === 'body'
      ? compilers.bodies.compile(schema)
      : withStrictScalars(compilers.parameters.compile(schema), schema),
  );
}

/**
 * 2xx bodies are written by serializers compiled from their documented schemas (errors, which are
 * problem+json, by JSON.stringify). Each is compiled on its first use rather than all at start-up,
 * as Fastify's own response schemas would.
 */
function lazySerializers(schemas: Record<string, JsonSchema>, compiler: SerializerCompiler) {
  const compiled = new Map<number, (body: unknown) => string>();
  return (status: number) => {
    let serializer = compiled.get(status);
    const schema = schemas[status];
    if (!serializer && schema) compiled.set(status, (serializer = compiler.compile(schema)));
    return serializer;
  };
}

const literal = {
  integer: /^-?(0|[1-9][0-9]*)$/,
  number: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/,
  boolean: /^(true|false)$/,
} as const;
type Scalar = keyof typeof literal;

/**
 * Path, query and header values arrive as strings. Only plain decimal numerals become numbers
 * (Ajv's own coercion would also take "1e400", "Infinity", "0x10" and " 7 "), and only `true` and
 * `false` booleans (not "1", "yes" or ""); anything else stays a string, so validation reports it
 * as the wrong type.
 */
function withStrictScalars(validate: ValidateFunction, schema: JsonSchema) {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const scalars = Object.entries(properties).filter(
    ([, p]) => typeof p.type === 'string' && p.type in literal,
  ) as [string, { type: Scalar }][];
  if (scalars.length === 0) return validate;
  const convert = (data: Record<string, unknown>) => {
    for (const [name, property] of scalars) {
      const value = data[name];
      if (typeof value === 'string' && literal[property.type].test(value))
        data[name] = property.type === 'boolean' ? value === 'true' : Number(value);
    }
  };
  const validateParameters: Validator = (data) => {
    convert(data as Record<string, unknown>);
    const valid = validate(data);
    validateParameters.errors = validate.errors;
    return valid;
  };
  return validateParameters;
}

export type Validator = { (data: unknown): boolean; errors?: ValidateFunction['errors'] };

function compiledOnFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

/**
 * Text is made NFC first. Postgres text cannot hold U+0000, so a string (or property name)
 * containing it is refused here, with its pointer, rather than failing later as a database error.
 */
function withoutNulCharacters(validate: Validator): Validator {
  const validateText: Validator = (data) => {
    normalizeText(data);
    const valid = validate(data);
    const nul = nulPointers(data, '').map((instancePath) => ({
      instancePath,
      schemaPath: '#',
      keyword: 'noNulCharacter',
      params: {},
      message: 'must not contain the NUL character (U+0000)',
    }));
    // A NUL is named as such, rather than as whatever else the same value fails (its pattern, its
    // format, the branches of a nullable `anyOf`): it is the one thing to fix.
    const others = (validate.errors ?? []).filter(
      (error) => !nul.some((n) => n.instancePath === error.instancePath),
    );
    validateText.errors = nul.length > 0 ? [...others, ...nul] : validate.errors;
    return valid && nul.length === 0;
  };
  return validateText;
}

/**
 * Every string of a request (body, query, path, headers) in Unicode NFC, in place, before it is
 * validated: "é" typed as e + U+0301 and as U+00E9 is one spelling when it is stored or compared.
 */
function normalizeText(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (typeof item === 'string') {
      const normalized = item.normalize('NFC');
      if (normalized !== item) record[key] = normalized;
    } else normalizeText(item);
  }
}

function nulPointers(value: unknown, pointer: string): string[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [pointer] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return key.includes('\u0000') ? [path] : nulPointers(item, path);
  });
}

/** The request schemas of an operation as Fastify takes them (path, query and header parameters; the JSON body). */
export function routeSchema(op: Operation) {
  const schema: Record<string, JsonSchema> = {};
  for (const [part, where] of [
    ['params', 'path'],
    ['querystring', 'query'],
    ['headers', 'header'],
  ] as const) {
    const parameters = op.parameters.filter((p) => p.in === where);
    if (parameters.length === 0) continue;
    // Header names are case-insensitive; Fastify hands them over lower-cased.
    const name = (n: string) => (where === 'header' ? n.toLowerCase() : n);
    schema[part] = {
      type: 'object',
      properties: Object.fromEntries(parameters.map((p) => [name(p.name), p.schema])),
      required: parameters.filter((p) => p.required).map((p) => name(p.name)),
    };
  }
  const body = op.operation.requestBody?.content['application/json']?.schema;
  if (body) schema.body = body;
  return schema;
}

function securitySchemes(op: Operation, spec: OpenApiDocument): string[] {
  const schemes = requiredSecuritySchemes(spec, op);
  if (schemes.length > 1)
    throw new Error(`${op.operationId}: only one security scheme per operation is supported`);
  return schemes;
}

/**
 * Where a credential is optional (`security: [{}, {bearerAuth: []}]`), a hook that leaves the
 * authentication to the handler, for the requests that need it (request-context.ts, requiredBot);
 * others ignore the Authorization header, as every public operation does.
 */
function optionalBearer(
  op: Operation,
  spec: OpenApiDocument,
  security: OpenApiRoutesOptions['security'],
): onRequestAsyncHookHandler[] {
  const requirements = op.operation.security ?? spec.security ?? [];
  const optional = requirements.some((requirement) => Object.keys(requirement).length === 0);
  const bearer = security.bearerAuth;
  if (!optional || !bearer || !requirements.some((requirement) => 'bearerAuth' in requirement)) return [];
  return [
    async function offerBearerAuth(request, reply) {
      request.authenticateOptionalBot = async () => void (await bearer.call(this, request, reply));
    },
  ];
}

function securityHooks(op: Operation, spec: OpenApiDocument, security: OpenApiRoutesOptions['security']) {
  return securitySchemes(op, spec).map((scheme) => {
    const hook = security[scheme];
    if (!hook) throw new Error(`${op.operationId}: no handler for security scheme ${scheme}`);
    return hook;
  });
}
