// Every request example in openapi.yaml is one the server accepts: what Swagger UI's "Try it out"
// sends by default (each documented parameter example, each body example) is never a 400 or a
// 5xx on a fresh server. Things the examples point at by name (`ada-7`, `alice`) are made first,
// through the documented examples themselves.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { listOperations, loadSpec, resolved, type JsonSchema, type Operation } from '../../src/openapi.js';
import { useTestApp } from '../helpers/app.js';
import { bearer } from '../helpers/bots.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

/** Operations whose input cannot have a working example: the one-time token comes from a mail. */
const unexampled = new Set(['completeEmailSignIn']);
const spec = loadSpec();

type Example = { value?: unknown; $ref?: string };

/** The documented values of a body or parameter: `example`, then each of `examples`, then the schema's. */
function documentedValues(holder: {
  example?: unknown;
  examples?: Record<string, Example> | unknown[];
  schema?: JsonSchema;
}): unknown[] {
  if (holder.example !== undefined) return [holder.example];
  if (holder.examples && !Array.isArray(holder.examples)) {
    return Object.values(holder.examples).map((example) => resolved<Example>(spec, example).value);
  }
  const schema = holder.schema ? resolved<JsonSchema>(spec, holder.schema) : undefined;
  const examples = (schema?.examples as unknown[] | undefined) ?? [];
  return examples.length > 0 ? [examples[0]] : [];
}

/** A parameter's documented example as it goes in a URL: a scalar, never an object. */
function parameterText(value: unknown): string {
  assert.ok(
    ['string', 'number', 'boolean'].includes(typeof value),
    `parameter example ${JSON.stringify(value)}`,
  );
  return String(value);
}

function requestsOf(op: Operation): Array<{ url: string; query: Record<string, string>; body: unknown }> {
  let url = op.path;
  const query: Record<string, string> = {};
  for (const parameter of op.parameters) {
    const [value] = documentedValues(parameter);
    if (parameter.in === 'path')
      url = url.replace(
        `{${parameter.name}}`,
        encodeURIComponent(value === undefined ? randomUUID() : parameterText(value)),
      );
    if (parameter.in === 'query' && value !== undefined) query[parameter.name] = parameterText(value);
  }
  const content = op.operation.requestBody?.content['application/json'] as
    { example?: unknown; examples?: Record<string, Example> } | undefined;
  const bodies = content ? documentedValues(content) : [undefined];
  return bodies.map((body) => ({ url, query, body }));
}

describe('documented examples', () => {
  test('every request example of every operation is accepted (never a 400 or a 5xx) on a fresh server', async () => {
    const operations = listOperations(spec);
    // The bot the examples name (`ada-7`), registered by registerBot's first example.
    const register = operations.find((op) => op.operationId === 'registerBot')!;
    const [first] = requestsOf(register);
    const registered = await t.app.inject({
      method: 'POST',
      url: first!.url,
      payload: first!.body as object,
    });
    assert.equal(registered.statusCode, 201, registered.body);
    const apiKey = registered.json().api_key as string;
    const cookie = await signIn(t);

    const refused: string[] = [];
    let sent = 0;
    for (const op of operations.filter((candidate) => !unexampled.has(candidate.operationId))) {
      const schemes = (op.operation.security ?? spec.security ?? []).flatMap((requirement) =>
        Object.keys(requirement),
      );
      const headers: Record<string, string> = schemes.includes('bearerAuth')
        ? bearer(apiKey)
        : schemes.includes('cookieAuth')
          ? asHuman(cookie)
          : {};
      for (const request of requestsOf(op)) {
        const response = await t.app.inject({
          method: op.method.toUpperCase() as 'GET',
          url: request.url,
          query: request.query,
          headers,
          ...(request.body === undefined ? {} : { payload: request.body as object }),
        });
        sent++;
        if (response.statusCode === 400 || response.statusCode >= 500) {
          refused.push(
            `${op.operationId} ${request.url} ${JSON.stringify(request.body)?.slice(0, 120)} -> ${response.statusCode} ${response.body.slice(0, 300)}`,
          );
        }
      }
    }
    assert.ok(sent >= operations.length - unexampled.size);
    assert.deepEqual(refused, []);
  });
});
