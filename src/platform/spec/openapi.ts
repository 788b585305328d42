// openapi.yaml, loaded once: the single source of truth for routes, request validation and docs.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  Ajv2020,
  type KeywordDefinition,
  type Options as AjvOptions,
  type ValidateFunction,
} from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fastJson from 'fast-json-stringify';
import type { RateLimitAction } from '../../config.js';
import { cacheFile, compiled, packageFile } from '../../config/package-files.js';
import { isInstant, uuidPattern } from './formats.js';

// Run from source (tsx), this reads openapi.yaml. Compiled by `npm run build`, it reads
// dist/openapi.json, the same document written by the build: JSON parses far faster than YAML, and
// the YAML parser need not be loaded at all. From source, the YAML is parsed once per change of
// it: the document is kept as JSON in the development cache under the YAML's hash (parsing it takes
// a quarter of a second, in every process: every test file is one).
const specPath = packageFile('openapi.yaml', 'openapi.json');

export type JsonSchema = Record<string, unknown>;

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  /** The words an MCP tool's argument says instead of `description` (src/mcp/README.md). */
  'x-mcp-description'?: string;
  schema: JsonSchema;
}

/** Our extension `x-rate-limit`: the operation is rate limited (see src/platform/admission/rate-limit-plugin.ts), per what. */
export interface RateLimitExtension {
  /** A bot action of the config's limits, or the e-mail sign-in requests of one client IP. */
  action: RateLimitAction;
  per: 'bot' | 'user' | 'client-ip';
}

export interface OperationObject {
  operationId: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<ParameterObject | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
  'x-rate-limit'?: RateLimitExtension;
  /** `false`: no MCP tool for this operation, though a bot could call it (src/mcp/README.md). */
  'x-mcp'?: boolean;
  /** `allowed`: a bot write a suspended bot may still make (src/platform/admission/suspension.ts). */
  'x-while-suspended'?: 'allowed';
  'x-while-read-only'?: 'allowed';
  /** `true`: its answer is the calling bot's own words, never another's (src/mcp/others-words.ts). */
  'x-own-words'?: boolean;
  /** `true`: its body's texts are checked: hidden text, secrets, labels (src/platform/text-checks/). */
  'x-secret-scanning'?: boolean;
  summary?: string;
  description?: string;
  /** What the operation's MCP tool says to a model instead of its summary and description (src/mcp/README.md). */
  'x-mcp-description'?: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string } & Record<string, unknown>;
  servers: Array<{ url: string; description?: string }>;
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, ParameterObject>;
    securitySchemes: Record<string, unknown>;
  } & Record<string, unknown>;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface Operation {
  operationId: string;
  method: (typeof httpMethods)[number];
  /** The path as the spec writes it: `/api/bots/{id}`. */
  path: string;
  operation: OperationObject;
  parameters: ParameterObject[];
}

let parsed: OpenApiDocument | undefined;

/** The spec, read once per process; each caller gets its own copy to keep or change. */
export function loadSpec(): OpenApiDocument {
  if (!parsed) {
    const text = readFileSync(specPath, 'utf8');
    parsed = compiled ? (JSON.parse(text) as OpenApiDocument) : parsedYaml(text);
  }
  return structuredClone(parsed);
}

function parsedYaml(text: string): OpenApiDocument {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const kept = cacheFile(`openapi-${hash}.json`);
  try {
    return JSON.parse(readFileSync(kept, 'utf8')) as OpenApiDocument;
  } catch {
    // Not kept yet: parse it, and keep it for the next process.
  }
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const document = parse(text) as OpenApiDocument;
  try {
    mkdirSync(new URL('./', kept), { recursive: true });
    // Written aside and renamed: a process reading at the same moment finds all of it or none.
    const partial = new URL(`${kept.pathname}.${process.pid}`, kept);
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, kept);
  } catch {
    // A cache that cannot be written changes nothing but speed.
  }
  return document;
}

/** Every operation of the document, with its parameters resolved from components. */
export function listOperations(spec: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = (operation.parameters ?? []).map((p) => resolved<ParameterObject>(spec, p));
      operations.push({ operationId: operation.operationId, method, path, operation, parameters });
    }
  }
  return operations;
}

/** An object of the spec, or the one its `$ref` (`#/components/...`) points at. */
export function resolved<T>(spec: OpenApiDocument, value: unknown): T {
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return value as T;
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) =>
        (node as Record<string, unknown> | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')],
      spec,
    );
  if (target === undefined) throw new Error(`Unresolvable $ref ${ref} in openapi.yaml`);
  return target as T;
}

/** The `$id` under which compilers hold the spec's component schemas, as `$defs`. */
const componentsId = 'urn:bot-platform:openapi-components';

export interface SchemaCompiler {
  /** Compiles a schema that may `$ref` the spec's `#/components/schemas/...`. */
  compile(schema: JsonSchema): ValidateFunction;
}

/**
 * A JSON Schema 2020-12 compiler that knows the spec's component schemas, so a schema taken from
 * openapi.yaml compiles as it stands there. The request validators and the tests' contract checks
 * both use it.
 */
export function createSchemaCompiler(
  spec: OpenApiDocument,
  options: AjvOptions,
  keywords: KeywordDefinition[] = [],
): SchemaCompiler {
  // verbose: a failed pattern's schema comes with its error, and with it the words for it.
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, verbose: true, ...options });
  // Words for MCP tools (src/mcp/README.md): an annotation, like `description`.
  ajv.addKeyword({ keyword: 'x-mcp-description', schemaType: 'string' });
  // A `pattern`'s rule in words, for the 400 (src/platform/http/errors.ts): never the regex itself.
  ajv.addKeyword({ keyword: 'x-pattern-message', schemaType: 'string' });
  for (const keyword of keywords) ajv.addKeyword(keyword);
  addFormats.default(ajv);
  // Ids are the plain form only.
  ajv.addFormat('uuid', uuidPattern);
  // Times we can store and say back (no leap second, no year past 9999).
  ajv.addFormat('date-time', isInstant);
  ajv.addSchema({ $id: componentsId, $defs: rewriteRefs(spec.components.schemas, '#/$defs/') });
  return { compile: (schema) => ajv.compile(rewriteRefs(schema, `${componentsId}#/$defs/`)) };
}

export interface SerializerCompiler {
  compile(schema: JsonSchema): (body: unknown) => string;
}

/**
 * Compiles a response schema from openapi.yaml into a JSON serializer (fast-json-stringify): it
 * writes only the properties the schema documents, so a column added to a query never leaks into
 * a response. It trusts the types it is given (handlers are checked against generated/ at compile
 * time): a missing required property throws, but a value of the wrong type is coerced, not refused
 * (null for a non-nullable string is written as "").
 */
export function createSerializerCompiler(spec: OpenApiDocument): SerializerCompiler {
  const schemas = spec.components.schemas;
  const components = {
    $id: componentsId,
    $defs: rewriteRefs(withNullableTypes(schemas, schemas), '#/$defs/'),
  };
  return {
    compile: (schema) =>
      compileSerializer(rewriteRefs(withNullableTypes(schema, schemas), `${componentsId}#/$defs/`), {
        schema: { [componentsId]: components },
      }),
  };
}

/**
 * The spec writes "X or null" as `anyOf: [{ $ref: X }, { type: 'null' }]`. fast-json-stringify
 * serializes an anyOf by validating the value against each branch, on every call; a type list
 * (`type: ['string', 'null']`) it decides with a typeof. Same documents, written faster.
 */
function withNullableTypes<T>(value: T, schemas: Record<string, JsonSchema>): T {
  if (Array.isArray(value)) return (value as unknown[]).map((v) => withNullableTypes(v, schemas)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const { anyOf, ...rest } = value as { anyOf?: JsonSchema[] } & JsonSchema;
  const nullable =
    anyOf?.length === 2 && anyOf.some((branch) => branch.type === 'null')
      ? anyOf.find((branch) => branch.type !== 'null')
      : undefined;
  const ref =
    typeof nullable?.$ref === 'string' ? nullable.$ref.replace('#/components/schemas/', '') : undefined;
  const target = ref === undefined ? undefined : schemas[ref];
  if (target && typeof target.type === 'string') {
    const enumeration = Array.isArray(target.enum) ? { enum: [...(target.enum as unknown[]), null] } : {};
    return withNullableTypes(
      { ...rest, ...target, ...enumeration, type: [target.type, 'null'] },
      schemas,
    ) as T;
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, withNullableTypes(v, schemas)]),
  ) as T;
}

// fast-json-stringify's types describe a subset of JSON Schema; the spec's schemas are plain JSON.
const compileSerializer = fastJson as unknown as (
  schema: JsonSchema,
  options: { schema: Record<string, JsonSchema> },
) => (body: unknown) => string;

/** The 2xx JSON response schemas of an operation, by status code. */
export function successSchemas(spec: OpenApiDocument, op: Operation): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(op.operation.responses)) {
    if (!/^2\d\d$/.test(status)) continue;
    const { content } = resolved<{ content?: Record<string, { schema?: JsonSchema }> }>(spec, response);
    const schema = content?.['application/json']?.schema;
    if (schema) schemas[status] = schema;
  }
  return schemas;
}

/**
 * The security schemes an operation requires: none for a public one, and none where a credential is
 * optional (a `{}` requirement beside the others: the handler asks for one when it needs it).
 */
export function requiredSecuritySchemes(spec: OpenApiDocument, op: Operation): string[] {
  const requirements = op.operation.security ?? spec.security ?? [];
  if (requirements.some((requirement) => Object.keys(requirement).length === 0)) return [];
  return requirements.flatMap((requirement) => Object.keys(requirement));
}

/** Whether an operation's 200 response documents an ETag header (and so answers conditional GETs). */
export function hasEntityTag(spec: OpenApiDocument, op: Operation): boolean {
  const ok = op.operation.responses['200'];
  if (!ok) return false;
  const { headers } = resolved<{ headers?: Record<string, unknown> }>(spec, ok);
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'etag');
}

const privateHeaderRef = '#/components/headers/PrivateCacheControl';

/** The Cache-Control of an answer that depends on a credential, as components/headers/PrivateCacheControl documents it. */
export function privateCacheControl(spec: OpenApiDocument): string {
  const header = resolved<{ schema?: { enum?: string[] } }>(spec, { $ref: privateHeaderRef });
  const value = header.schema?.enum?.[0];
  if (!value) throw new Error('openapi.yaml documents no value for PrivateCacheControl');
  return value;
}

/**
 * Whether an operation's answers depend on a credential (or set one): one of its responses documents
 * the PrivateCacheControl header. Every answer of it then carries that header, errors included.
 */
export function hasPrivateAnswers(spec: OpenApiDocument, op: Operation): boolean {
  return Object.values(op.operation.responses).some((response) => {
    const { headers } = resolved<{ headers?: Record<string, { $ref?: string }> }>(spec, response);
    return Object.values(headers ?? {}).some((header) => header.$ref === privateHeaderRef);
  });
}

/**
 * The pattern a header of `components/headers` documents, as a RegExp: the rule the server applies
 * to the header (an echoed X-Request-Id) is the one the spec promises, never a restatement.
 */
export function headerPattern(spec: OpenApiDocument, name: string): RegExp {
  const header = (spec.components.headers as Record<string, { schema?: { pattern?: string } }> | undefined)?.[
    name
  ];
  const pattern = header?.schema?.pattern;
  if (!pattern) throw new Error(`openapi.yaml documents no pattern for the ${name} header`);
  return new RegExp(pattern);
}

/** Points `#/components/schemas/X` references at the compiler's copy of the components. */
function rewriteRefs<T>(value: T, target: string): T {
  if (Array.isArray(value)) return (value as unknown[]).map((v) => rewriteRefs(v, target)) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) =>
      key === '$ref' && typeof v === 'string'
        ? [key, v.replace('#/components/schemas/', target)]
        : [key, rewriteRefs(v, target)],
    ),
  ) as T;
}
