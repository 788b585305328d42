// openapi.yaml, loaded once: the single source of truth for routes, request validation and docs.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const specPath = new URL('../openapi.yaml', import.meta.url);

export type JsonSchema = Record<string, unknown>;

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OperationObject {
  operationId: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<ParameterObject | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers: Array<{ url: string; variables?: Record<string, { default: string }> }>;
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, ParameterObject>;
    securitySchemes: Record<string, unknown>;
  } & Record<string, unknown>;
}

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface Operation {
  operationId: string;
  method: (typeof httpMethods)[number];
  /** The path as the spec writes it: `/api/bots/{id}`. */
  path: string;
  operation: OperationObject;
  parameters: ParameterObject[];
}

export function loadSpec(): OpenApiDocument {
  return parse(readFileSync(specPath, 'utf8')) as OpenApiDocument;
}

/** Every operation of the document, with its parameters resolved from components. */
export function listOperations(spec: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = (operation.parameters ?? []).map((p) =>
        '$ref' in p ? resolveRef<ParameterObject>(spec, p.$ref) : p,
      );
      operations.push({ operationId: operation.operationId, method, path, operation, parameters });
    }
  }
  return operations;
}

function resolveRef<T>(spec: OpenApiDocument, ref: string): T {
  const value = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], spec);
  if (value === undefined) throw new Error(`Unresolvable $ref ${ref} in openapi.yaml`);
  return value as T;
}
