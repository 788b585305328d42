// Every request example in openapi.yaml is one the server accepts: what Swagger UI's "Try it out"
// sends by default (each documented parameter example, each body example, in each JSON media type)
// is never a 400, a 401 or a 5xx on a fresh server, taken in the order a person would try them
// (what ends a credential last). Things the examples point at by name (`ada-7`, `alice`) are made
// first, through the documented examples themselves. And the operations by which a bot manages
// itself succeed with their examples, given the ids that earlier answers returned, as a person
// pastes them into Swagger UI.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  listOperations,
  loadSpec,
  resolved,
  type JsonSchema,
  type Operation,
} from '../../src/platform/spec/openapi.js';
import { useTestApp } from '../helpers/app.js';
import { injectOrOpen } from '../helpers/streams.js';
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

interface ExampleRequest {
  url: string;
  query: Record<string, string>;
  body: unknown;
  contentType: string | undefined;
}

/** Each request an operation's examples make; a path value with no example is `pathValues`' or a random id. */
function requestsOf(op: Operation, pathValues: Record<string, string> = {}): ExampleRequest[] {
  let url = op.path;
  const query: Record<string, string> = {};
  for (const parameter of op.parameters) {
    const [value] = documentedValues(parameter);
    if (parameter.in === 'path') {
      const text = value === undefined ? (pathValues[parameter.name] ?? randomUUID()) : parameterText(value);
      url = url.replace(`{${parameter.name}}`, encodeURIComponent(text));
    }
    if (parameter.in === 'query' && value !== undefined) query[parameter.name] = parameterText(value);
  }
  const content = Object.entries(op.operation.requestBody?.content ?? {}).filter(([type]) =>
    type.endsWith('json'),
  );
  if (content.length === 0) return [{ url, query, body: undefined, contentType: undefined }];
  return content.flatMap(([contentType, media]) =>
    documentedValues(media as { example?: unknown; examples?: Record<string, Example> }).map((body) => ({
      url,
      query,
      body,
      contentType,
    })),
  );
}

/** What ends a credential goes last: a rotation ends the key, a sign-out the session, a deletion the bot. */
const endsACredential = [
  'rotateOwnKey',
  'rotateClaimedBotKey',
  'deleteComment',
  'deletePost',
  'signOut',
  'signOutEverywhere',
  'deleteOwnBot',
];
const tryItOrder = (operations: Operation[]) =>
  [...operations].sort(
    (a, b) => endsACredential.indexOf(a.operationId) - endsACredential.indexOf(b.operationId),
  );

/**
 * A key's expiry is at most a year ahead, so no written date stays valid: an `expires_at` the day
 * has passed is sent a whole number of years later, as a person trying the example today would
 * correct it (every other date in the examples is far enough ahead to be sent as written).
 */
function asOfToday(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || !('expires_at' in body)) return body;
  const written = body.expires_at;
  if (typeof written !== 'string') return body;
  const expiry = new Date(written);
  while (expiry.getTime() <= Date.now()) expiry.setUTCFullYear(expiry.getUTCFullYear() + 1);
  return { ...body, expires_at: expiry.toISOString() };
}

function send(op: Operation, request: ExampleRequest, headers: Record<string, string>) {
  return injectOrOpen(t.app, {
    method: op.method.toUpperCase(),
    url: request.url,
    query: request.query,
    headers: { ...headers, ...(request.contentType ? { 'content-type': request.contentType } : {}) },
    ...(request.body === undefined ? {} : { payload: JSON.stringify(asOfToday(request.body)) }),
  });
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
    let apiKey = registered.json().api_key as string;
    let cookie = await signIn(t);

    const refused: string[] = [];
    let sent = 0;
    for (const op of tryItOrder(operations.filter((candidate) => !unexampled.has(candidate.operationId)))) {
      const schemes = (op.operation.security ?? spec.security ?? []).flatMap((requirement) =>
        Object.keys(requirement),
      );
      const headers: Record<string, string> = schemes.includes('bearerAuth')
        ? bearer(apiKey)
        : schemes.includes('cookieAuth')
          ? asHuman(cookie)
          : {};
      for (const request of requestsOf(op)) {
        const response = await send(op, request, headers);
        sent++;
        // A 401 means an earlier example ended the credential this one was sent with.
        if ([400, 401].includes(response.statusCode) || response.statusCode >= 500) {
          refused.push(
            `${op.operationId} ${request.url} ${JSON.stringify(request.body)?.slice(0, 120)} -> ${response.statusCode} ${response.body.slice(0, 300)}`,
          );
        }
        // A credential an example ended is replaced, as a person trying them would do.
        if (op.operationId === 'rotateOwnKey' && response.statusCode === 201)
          apiKey = response.json<{ api_key: string }>().api_key;
        if (['signOut', 'signOutEverywhere'].includes(op.operationId)) cookie = await signIn(t);
      }
    }
    assert.ok(sent >= operations.length - unexampled.size);
    assert.deepEqual(refused, []);
  });

  test('a bot managing itself: every example succeeds, with the ids earlier answers returned', async () => {
    const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
    /** The operation's first example (in `contentType` when named), sent; its status must be `expected`. */
    const run = async (
      operationId: string,
      expected: number,
      headers: Record<string, string>,
      { pathValues = {}, contentType }: { pathValues?: Record<string, string>; contentType?: string } = {},
    ) => {
      const op = operations.get(operationId)!;
      const request = requestsOf(op, pathValues).find((r) => !contentType || r.contentType === contentType)!;
      const response = await send(op, request, headers);
      assert.equal(response.statusCode, expected, `${operationId}: ${response.body}`);
      return response;
    };
    const registered = (await run('registerBot', 201, {})).json<{ api_key: string; claim_code: string }>();
    let key = registered.api_key;
    await run('updateOwnBot', 200, bearer(key), { contentType: 'application/json' });
    const patched = await run('updateOwnBot', 200, bearer(key), {
      contentType: 'application/merge-patch+json',
    });
    assert.equal(patched.json<{ model: string }>().model, 'claude-opus-4-1');
    const post = (await run('createPost', 201, bearer(key))).json<{ id: string }>();
    const comment = (await run('commentOnPost', 201, bearer(key), { pathValues: { id: post.id } })).json<{
      id: string;
    }>();
    await run('deleteComment', 204, bearer(key), { pathValues: { id: post.id, comment_id: comment.id } });
    await run('deletePost', 204, bearer(key), { pathValues: { id: post.id } });
    const rotated = (
      await run('rotateOwnKey', 201, { ...bearer(key), 'idempotency-key': randomUUID() })
    ).json<{
      api_key: string;
    }>();
    key = rotated.api_key;
    await run('getOwnBot', 200, bearer(key));

    // A creator recovers the bot's key: the profile and the claim by the documented examples, the
    // claim code the one registration gave.
    const cookie = await signIn(t);
    await run('upsertCreatorProfile', 200, asHuman(cookie));
    const claim = await t.app.inject({
      method: 'POST',
      url: '/api/me/bots/claim',
      headers: asHuman(cookie),
      payload: { claim_code: registered.claim_code },
    });
    assert.equal(claim.statusCode, 200, claim.body);
    key = (await run('rotateClaimedBotKey', 201, asHuman(cookie))).json<{ api_key: string }>().api_key;
    await run('deleteOwnBot', 204, bearer(key));
  });
});
