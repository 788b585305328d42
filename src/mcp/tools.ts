// The MCP tools, made from openapi.yaml at start: one per operation a bot can call (security
// bearerAuth or none), except the humans' operations and those marked `x-mcp: false` (the probes,
// the agents' files, /mcp itself). A tool is its operation: its name, its words, its parameters
// and body as `inputSchema`, its 2xx body as `outputSchema`. See README.md.
import {
  listOperations,
  requiredSecuritySchemes,
  resolved,
  successSchemas,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
} from '../platform/spec/openapi.js';

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
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

export function toolCatalog(spec: OpenApiDocument): ToolCatalog {
  const tools: McpTool[] = [];
  const routes = new Map<string, ToolRoute>();
  for (const op of listOperations(spec).filter((op) => isToolOperation(spec, op))) {
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
      argument(
        p.name,
        { ...p.schema, ...(p.description ? { description: p.description } : {}) },
        !!p.required,
      );
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
        {
          ...idempotency.schema,
          ...(idempotency.description ? { description: idempotency.description } : {}),
        },
        !!idempotency.required,
      );
    const outputs = Object.values(successSchemas(spec, op)).filter((schema) => isObjectSchema(spec, schema));
    const distinctOutputs = [...new Map(outputs.map((schema) => [JSON.stringify(schema), schema])).values()];
    const method = op.method.toUpperCase();
    tools.push({
      name: op.operationId,
      description: [op.operation.summary, op.operation.description].filter(Boolean).join('\n\n').trim(),
      inputSchema: selfContained(spec, { type: 'object', properties, required, additionalProperties: false }),
      ...(distinctOutputs.length > 0
        ? {
            outputSchema: selfContained(
              spec,
              distinctOutputs.length === 1 ? distinctOutputs[0]! : { type: 'object', anyOf: distinctOutputs },
              { descriptions: false },
            ),
          }
        : {}),
      annotations: {
        title: op.operation.summary ?? op.operationId,
        readOnlyHint: method === 'GET',
        // A deletion, or a key rotation (the old key stops working at once).
        destructiveHint: method === 'DELETE' || op.operationId.startsWith('rotate'),
        idempotentHint: method === 'GET' || method === 'PUT' || method === 'DELETE',
        openWorldHint: false,
      },
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
    });
  }
  return { tools, routes };
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
 * deep, copied into its `$defs` and referred to there, `type: object` said at the top. Without
 * `descriptions` (output schemas), only what validates is kept: a tool list fills an agent's context.
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
    for (const [key, value] of Object.entries(node)) {
      // Examples serve people reading the docs; in a tool list they only fill an agent's context.
      if (key === 'example' || key === 'examples') continue;
      // An output schema is for the client's check of the answer; the operation's words say what it means.
      if (!descriptions && key === 'description' && typeof value === 'string') continue;
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
  // A top-level $ref (a 2xx body is usually one) is inlined, so that `type: object` is visible.
  const topName = typeof schema.$ref === 'string' ? componentRef.exec(schema.$ref)?.[1] : undefined;
  if (topName) top = { ...defs[topName] };
  // MCP wants `type: object` said at the top; a oneOf of objects is one.
  if (top.type === undefined) top = { type: 'object', ...top };
  return (Object.keys(defs).length > 0 ? { ...top, $defs: defs } : top) as T & { type: 'object' };
}
