// Checks a response against openapi.yaml: the status is documented for the operation, the
// content type is the documented one, and the body validates against the documented schema.
import assert from 'node:assert/strict';
import { createSchemaCompiler, listOperations, loadSpec, type JsonSchema } from '../../src/openapi.js';
import type { OperationId } from '../../src/operation-types.js';

const spec = loadSpec();
const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
const compiler = createSchemaCompiler(spec, { strict: false });

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema: JsonSchema }>;
  headers?: Record<string, { required?: boolean }>;
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
  const documented = raw.$ref
    ? (spec.components.responses as Record<string, ResponseObject>)[raw.$ref.split('/').pop()!]
    : raw;
  assert.ok(documented, `unresolvable ${raw.$ref}`);
  assert.ok(response.headers['x-request-id'], 'every response has x-request-id');
  const content = documented.content;
  if (!content) {
    assert.equal(response.body, '', `${operationId} ${response.statusCode} documents no body`);
    return;
  }
  const [mediaType, { schema }] = Object.entries(content)[0]!;
  assert.equal(String(response.headers['content-type']).split(';')[0], mediaType);
  const validate = compiler.compile(schema);
  const body: unknown = mediaType === 'text/plain' ? response.body : response.json();
  assert.ok(
    validate(body),
    `${operationId} ${response.statusCode} body does not match the spec: ${JSON.stringify(validate.errors)}\n${response.body}`,
  );
}
