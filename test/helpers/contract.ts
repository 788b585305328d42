// Checks a response against openapi.yaml: the status is documented for the operation, the
// documented headers are there (those the spec marks required) and match their schemas, the content
// type is the documented one, and the body validates against the documented schema.
import assert from 'node:assert/strict';
import {
  createSchemaCompiler,
  listOperations,
  loadSpec,
  resolved,
  type JsonSchema,
} from '../../src/platform/spec/openapi.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';

const spec = loadSpec();
const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
const compiler = createSchemaCompiler(spec, { strict: false });
/**
 * Each schema compiled once: the compiler copies a schema to rewrite its references, so Ajv sees a
 * new object, and compiles it again, every time it is handed the same one (most of the CPU of a
 * test that checks hundreds of responses, as the fuzz test does).
 */
const validators = new WeakMap<JsonSchema, ReturnType<typeof compiler.compile>>();
function validatorOf(schema: JsonSchema) {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compiler.compile(schema)));
  return validate;
}

interface HeaderObject {
  required?: boolean;
  schema?: JsonSchema;
}

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema: JsonSchema }>;
  headers?: Record<string, HeaderObject | { $ref: string }>;
}

/** What is checked of a response: `app.inject`'s, or one read over HTTP (the soak). */
export interface ContractResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json(): unknown;
}

export function assertContract(operationId: OperationId, response: ContractResponse) {
  const op = operations.get(operationId);
  assert.ok(op, `${operationId} is not in openapi.yaml`);
  const raw = op.operation.responses[String(response.statusCode)] as ResponseObject | undefined;
  assert.ok(raw, `${operationId} does not document status ${response.statusCode}: ${response.body}`);
  const documented = resolved<ResponseObject>(spec, raw);
  assert.ok(response.headers['x-request-id'], 'every response has x-request-id');
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    assertHeader(`${operationId} ${response.statusCode}`, name, resolved(spec, header), response);
  }
  const content = documented.content;
  if (!content) {
    assert.equal(response.body, '', `${operationId} ${response.statusCode} documents no body`);
    return;
  }
  const [mediaType, { schema }] = Object.entries(content)[0]!;
  assert.equal(String(response.headers['content-type']).split(';')[0], mediaType);
  const validate = validatorOf(schema);
  const body: unknown = mediaType.startsWith('text/') ? response.body : response.json();
  assert.ok(
    validate(body),
    `${operationId} ${response.statusCode} body does not match the spec: ${JSON.stringify(validate.errors)}\n${response.body}`,
  );
}

/** A documented header: present when the spec marks it required, and as its schema says when present. */
function assertHeader(where: string, name: string, header: HeaderObject, response: ContractResponse) {
  const value = response.headers[name.toLowerCase()];
  if (value === undefined) {
    assert.ok(!header.required, `${where} must send the ${name} header`);
    return;
  }
  if (!header.schema) return;
  // Header values are text; a numeric header is checked as the number it spells.
  const type = header.schema.type;
  const text = String(value);
  const typed =
    (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  const validate = validatorOf(header.schema);
  assert.ok(
    validate(typed),
    `${where}: the ${name} header ${JSON.stringify(text)} does not match the spec: ${JSON.stringify(validate.errors)}`,
  );
}

/** One event of a stream (`text/event-stream`) against the `x-item-schema` its operation's 200 documents. */
export function assertStreamEvent(
  operationId: OperationId,
  event: { id: string; event: string; data: unknown },
) {
  const op = operations.get(operationId);
  assert.ok(op, `${operationId} is not in openapi.yaml`);
  const ok = resolved<{ content?: Record<string, { 'x-item-schema'?: JsonSchema }> }>(
    spec,
    op.operation.responses['200'],
  );
  const itemSchema = ok.content?.['text/event-stream']?.['x-item-schema'];
  assert.ok(itemSchema, `${operationId} documents no x-item-schema for its stream`);
  const validate = validatorOf(itemSchema);
  assert.ok(
    validate(event),
    `${operationId} event does not match the spec: ${JSON.stringify(validate.errors)}\n${JSON.stringify(event)}`,
  );
}
