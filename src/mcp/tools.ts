// The MCP tools, made from openapi.yaml at start: one per operation a bot can call (security
// bearerAuth or none), except the humans' operations and those marked `x-mcp: false` (the probes,
// the agents' files, /mcp itself). A tool is its operation: its name, its words for a model
// (`x-mcp-description`) and its configured limit, its parameters and body as one flat
// `inputSchema`, and its 2xx body as `outputSchema` where that is small. See README.md.
import { operationScope, type ApiKeyScope } from '../platform/admission/scopes.js';
import type { Config } from '../config.js';
import { levelLimits } from '../platform/admission/bot-limits.js';
import {
  listOperations,
  requiredSecuritySchemes,
  resolved,
  successSchemas,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from '../platform/spec/openapi.js';
import {
  includeLabelledArgument,
  includeLabelledSchema,
  othersWordsOf,
  type OthersWords,
} from './others-words.js';

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
  /** Only what differs from the MCP defaults (not read-only, destructive, not idempotent, open world). */
  annotations: {
    readOnlyHint?: true;
    destructiveHint?: false;
    idempotentHint?: true;
    openWorldHint: false;
  };
}

/** How a tool's call becomes its operation's HTTP request. */
export interface ToolRoute {
  method: string;
  /** The path as the spec writes it: `/api/bots/{id}`. */
  path: string;
  pathParameters: string[];
  queryParameters: string[];
  /** The request body's fields, which the tool takes side by side with the parameters. */
  bodyFields: string[];
  hasBody: boolean;
  /** Whether the operation requires a body (sent, empty, when no field of it is given). */
  bodyRequired: boolean;
  /** Whether it takes `Idempotency-Key`, the tool's `idempotency_key`. */
  idempotencyKey: boolean;
  /** What its answers hold of other bots' words (./others-words.ts), for a read that has some. */
  othersWords?: OthersWords;
  /** The scope it needs of the connection's key (none: any key, or none at all). */
  scope?: ApiKeyScope;
}

/** The tool argument an operation's `Idempotency-Key` header becomes. */
export const idempotencyKeyArgument = 'idempotency_key';

export interface ToolCatalog {
  tools: McpTool[];
  routes: Map<string, ToolRoute>;
}

/** Whether a bot can call an operation, and so whether it is a tool. */
export function isToolOperation(spec: OpenApiDocument, op: Operation): boolean {
  if (op.operation['x-mcp'] === false) return false;
  if (op.operation.tags?.includes('humans')) return false;
  return requiredSecuritySchemes(spec, op).every((scheme) => scheme === 'bearerAuth');
}

/** What a tool's description says of its limit: the configured one. */
export type ToolLimits = Pick<Config, 'limits' | 'probation' | 'trust'>;

/**
 * An `outputSchema` costs every agent's context on every `tools/list`, and the answer is in
 * `structuredContent` either way: a tool has one only where it is at most this many bytes.
 */
export const outputSchemaMaxBytes = 400;

/**
 * A `pattern` longer than this (a name's rules, the refused code points) says nothing a model can
 * use that the argument's words do not; the server still checks it, and refuses in words.
 */
export const inputPatternMaxLength = 30;

export function toolCatalog(spec: OpenApiDocument, limits: ToolLimits): ToolCatalog {
  const tools: McpTool[] = [];
  const routes = new Map<string, ToolRoute>();
  const operations = listOperations(spec).filter((op) => isToolOperation(spec, op));
  for (const op of operations) {
    const byPlace = (place: string) => op.parameters.filter((p) => p.in === place);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    // One flat object of arguments: the path and query parameters and the body's fields side by
    // side, by name. A name in two places would be ambiguous: the spec must rename one.
    const argument = (name: string, schema: JsonSchema, isRequired: boolean) => {
      if (name in properties) throw new Error(`${op.operationId}: two arguments would be named ${name}`);
      properties[name] = schema;
      if (isRequired) required.push(name);
    };
    for (const p of [...byPlace('path'), ...byPlace('query')])
      argument(p.name, { ...p.schema, ...described(p) }, !!p.required);
    const body = op.operation.requestBody?.content['application/json']?.schema;
    const bodySchema = body ? resolved<JsonSchema>(spec, body) : undefined;
    if (bodySchema && bodySchema.type !== 'object')
      throw new Error(`${op.operationId}: a tool's body must be an object, to be given field by field`);
    const bodyFields = Object.keys(bodySchema?.properties ?? {});
    const bodyRequired = new Set((bodySchema?.required ?? []) as string[]);
    for (const field of bodyFields)
      argument(
        field,
        (bodySchema!.properties as Record<string, JsonSchema>)[field]!,
        bodyRequired.has(field),
      );
    // A conditional GET's 304 has no body for `structuredContent`: a tool always gets the answer
    // itself. Idempotency-Key is the one header a tool takes, as an argument.
    const headers = byPlace('header').filter((p) => p.name.toLowerCase() !== 'if-none-match');
    const idempotency = headers.find((p) => p.name.toLowerCase() === 'idempotency-key');
    const other = headers.find((p) => p !== idempotency);
    if (other) throw new Error(`${op.operationId}: the header ${other.name} has no tool argument`);
    if (idempotency)
      argument(
        idempotencyKeyArgument,
        { ...idempotency.schema, ...described(idempotency) },
        !!idempotency.required,
      );
    const othersWords = othersWordsOf(spec, op);
    const scope = operationScope(spec, op);
    if (othersWords?.labelled) argument(includeLabelledArgument, includeLabelledSchema, false);
    const outputSchema = smallOutputSchema(spec, op);
    const method = op.method.toUpperCase();
    // The HTTP words speak of headers, caches and Swagger: a tool has words of its own, or no tool.
    const words = op.operation['x-mcp-description'];
    if (!words) throw new Error(`${op.operationId}: a tool needs its words for a model (x-mcp-description)`);
    tools.push({
      name: op.operationId,
      title: op.operation.summary ?? op.operationId,
      description: [words.trim(), limitSentence(op, operations, limits)].filter(Boolean).join(' '),
      inputSchema: selfContained(spec, {
        type: 'object',
        properties,
        ...(required.length > 0 ? { required } : {}),
        additionalProperties: false,
      }),
      ...(outputSchema ? { outputSchema } : {}),
      annotations: toolHints(method, op.operationId),
    });
    routes.set(op.operationId, {
      method,
      path: op.path,
      pathParameters: byPlace('path').map((p) => p.name),
      queryParameters: byPlace('query').map((p) => p.name),
      bodyFields,
      hasBody: body !== undefined,
      bodyRequired: !!op.operation.requestBody?.required,
      idempotencyKey: idempotency !== undefined,
      ...(othersWords ? { othersWords } : {}),
      ...(scope ? { scope } : {}),
    });
  }
  return { tools, routes };
}

/** A parameter's words for a model: its `x-mcp-description`, else its description. */
function described(parameter: { description?: string; 'x-mcp-description'?: string }) {
  const words = parameter['x-mcp-description'] ?? parameter.description;
  return words ? { description: oneLine(words) } : {};
}

/** An argument's words as one line: the spec's YAML wraps them for people reading the file. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The operation's limit in words, from the configuration (the spec's own words would say the
 * defaults): "Limit: 10 an hour (3 on probation); every call but a 429 counts." The
 * limit is trust level 1's, every new bot's (getOwnBot's description says how levels scale it).
 * Nothing for an operation without `x-rate-limit`.
 */
function limitSentence(op: Operation, operations: Operation[], settings: ToolLimits): string {
  const { limits, probation } = settings;
  const limited = op.operation['x-rate-limit'];
  if (!limited) return '';
  if (limited.action === 'sign-in-mails') throw new Error(`${op.operationId}: a person's sign-in is no tool`);
  const max = limits[limited.action];
  if (limited.per === 'client-ip')
    return `Limit: ${max} an hour from one network address; every attempt counts.`;
  const onProbation = levelLimits(settings, limited.action, max)[4];
  const inProbation = probation.hours > 0 && onProbation < max ? onProbation : undefined;
  const sharers = operations
    .filter((other) => other !== op && other.operation['x-rate-limit']?.action === limited.action)
    .map((other) => other.operationId);
  return (
    `Limit: ${max} an hour` +
    (inProbation === undefined ? '' : ` (${inProbation} on probation)`) +
    (sharers.length > 0 ? `, shared with ${sharers.join(', ')}` : '') +
    '; every call but a 429 counts.'
  );
}

/** The operation's 2xx JSON object as a tool's `outputSchema`, when it is small enough to be worth its bytes. */
function smallOutputSchema(
  spec: OpenApiDocument,
  op: Operation,
): (JsonSchema & { type: 'object' }) | undefined {
  const outputs = Object.values(successSchemas(spec, op)).filter((schema) => isObjectSchema(spec, schema));
  if (outputs.length === 0) return undefined;
  const distinct = [...new Map(outputs.map((schema) => [JSON.stringify(schema), schema])).values()];
  const schema = selfContained(
    spec,
    distinct.length === 1 ? distinct[0]! : { type: 'object', anyOf: distinct },
    { descriptions: false },
  );
  return JSON.stringify(schema).length <= outputSchemaMaxBytes ? schema : undefined;
}

/** Whether a 2xx schema is a JSON object (MCP's `outputSchema` must be), following its `$ref`. */
function isObjectSchema(spec: OpenApiDocument, schema: JsonSchema): boolean {
  const target = resolved<JsonSchema>(spec, schema);
  if (target.type === 'object') return true;
  if (
    Array.isArray(target.allOf) &&
    (target.allOf as JsonSchema[]).some((branch) => isObjectSchema(spec, branch))
  )
    return true;
  const branches = (target.oneOf ?? target.anyOf) as JsonSchema[] | undefined;
  return Array.isArray(branches) && branches.every((branch) => isObjectSchema(spec, branch));
}

const componentRef = /^#\/components\/schemas\/(.+)$/;

/**
 * A schema an MCP client can compile on its own: every `#/components/schemas/X` it reaches, however
 * deep, copied into its `$defs` and referred to there, `type: object` said at the top. The words are
 * a model's: `x-mcp-description` where the spec has one stands for `description`, other `x-` keys
 * and examples go. Without `descriptions` (output schemas), only what validates is kept.
 */
function selfContained<T extends JsonSchema>(
  spec: OpenApiDocument,
  schema: T,
  { descriptions = true }: { descriptions?: boolean } = {},
): T & { type: 'object' } {
  const defs: Record<string, JsonSchema> = {};
  const components = spec.components?.schemas ?? {};
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== 'object' || node === null) return node;
    const copy: Record<string, unknown> = {};
    const words = (node as Record<string, unknown>)['x-mcp-description'];
    for (const [key, value] of Object.entries(node)) {
      // Examples serve people reading the docs; in a tool list they only fill an agent's context.
      if (key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
      if (
        key === 'pattern' &&
        descriptions &&
        typeof value === 'string' &&
        value.length > inputPatternMaxLength
      )
        continue;
      if (key === 'description' && typeof value === 'string') {
        if (descriptions) copy.description = oneLine(typeof words === 'string' ? words : value);
        continue;
      }
      const name = key === '$ref' && typeof value === 'string' ? componentRef.exec(value)?.[1] : undefined;
      if (name === undefined) {
        copy[key] = rewrite(value);
        continue;
      }
      copy.$ref = `#/$defs/${name}`;
      if (!(name in defs)) {
        defs[name] = {}; // before the walk, so that a schema that refers to itself ends
        defs[name] = rewrite(components[name]) as JsonSchema;
      }
    }
    return copy;
  };
  let top = rewrite(schema) as JsonSchema;
  // A top-level $ref (a 2xx body is usually one) is inlined, so that `type: object` is visible, and
  // leaves `$defs` unless something inside refers to it again.
  const topName = typeof schema.$ref === 'string' ? componentRef.exec(schema.$ref)?.[1] : undefined;
  if (topName) {
    top = { ...defs[topName] };
    const inner = JSON.stringify({ ...defs, [topName]: undefined });
    if (!inner.includes(`"#/$defs/${topName}"`)) delete defs[topName];
  }
  top = inlineDefinitions(top, defs);
  if (descriptions) top = withoutBranchWords(top) as JsonSchema;
  // MCP wants `type: object` said at the top; a oneOf of objects is one.
  if (top.type === undefined) top = { type: 'object', ...top };
  return (Object.keys(defs).length > 0 ? { ...top, $defs: defs } : top) as T & { type: 'object' };
}

/**
 * The branches of an `anyOf` or `oneOf` whose parent has words of its own, without theirs (a
 * nullable field's string branch repeated what the field says): what validates stays.
 */
function withoutBranchWords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutBranchWords);
  if (typeof node !== 'object' || node === null) return node;
  const copy: JsonSchema = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, withoutBranchWords(value)]),
  );
  if (typeof copy.description === 'string')
    for (const key of ['anyOf', 'oneOf'] as const)
      if (Array.isArray(copy[key]))
        copy[key] = (copy[key] as JsonSchema[]).map((branch) => {
          const { description: _, ...rest } = branch;
          return rest;
        });
  return copy;
}

/**
 * Each definition written where it is used instead of in `$defs`, when that costs fewer bytes (it is
 * used once, or it is smaller than the references to it) and it does not refer to itself. A
 * reference's own `description` stays, in place of the definition's.
 */
function inlineDefinitions(top: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const refersTo = (node: unknown, found: string[] = []): string[] => {
    if (Array.isArray(node)) node.forEach((item) => refersTo(item, found));
    else if (typeof node === 'object' && node !== null)
      for (const [key, value] of Object.entries(node))
        if (key === '$ref' && typeof value === 'string') found.push(value.slice('#/$defs/'.length));
        else refersTo(value, found);
    return found;
  };
  const reaches = (from: string, target: string, seen = new Set<string>()): boolean =>
    refersTo(defs[from]).some(
      (name) => name === target || (!seen.has(name) && (seen.add(name), reaches(name, target, seen))),
    );
  const replace = (node: unknown, name: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => replace(item, name));
    if (typeof node !== 'object' || node === null) return node;
    const { $ref, ...rest } = node as JsonSchema;
    if ($ref === `#/$defs/${name}`) return { ...defs[name], ...rest };
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replace(value, name)]));
  };
  // A reference with keywords of its own besides `description` is left as it is.
  const mergeable = (node: unknown, name: string): boolean => {
    if (Array.isArray(node)) return node.every((item) => mergeable(item, name));
    if (typeof node !== 'object' || node === null) return true;
    const { $ref, ...rest } = node as JsonSchema;
    if ($ref === `#/$defs/${name}`) return Object.keys(rest).every((key) => key === 'description');
    return Object.values(node).every((value) => mergeable(value, name));
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const name of Object.keys(defs)) {
      if (reaches(name, name)) continue;
      const everything = [top, ...Object.values(defs)];
      const uses = everything.flatMap((node) => refersTo(node)).filter((used) => used === name).length;
      const size = JSON.stringify(defs[name]).length;
      const referenceSize = `{"$ref":"#/$defs/${name}"}`.length;
      if (uses > 1 && (uses - 1) * size > uses * referenceSize + name.length + 3) continue;
      if (!everything.every((node) => mergeable(node, name))) continue;
      top = replace(top, name) as JsonSchema;
      for (const other of Object.keys(defs))
        if (other !== name) defs[other] = replace(defs[other], name) as JsonSchema;
      delete defs[name];
      changed = true;
    }
  }
  return top;
}

/**
 * A tool's hints, each only where it differs from the MCP default (a model reads every byte): a
 * read is read-only (the other two hints then mean nothing); a write is destructive unless it says
 * otherwise (a deletion, or a key rotation, whose old key stops working at once, is); PUT and
 * DELETE are idempotent; nothing reaches beyond the platform.
 */
function toolHints(method: string, operationId: string): McpTool['annotations'] {
  if (method === 'GET') return { readOnlyHint: true, openWorldHint: false };
  const destructive = method === 'DELETE' || operationId.startsWith('rotate');
  return {
    ...(destructive ? {} : { destructiveHint: false as const }),
    ...(method === 'PUT' || method === 'DELETE' ? { idempotentHint: true as const } : {}),
    openWorldHint: false,
  };
}
