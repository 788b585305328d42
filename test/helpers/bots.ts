// Registering bots through the API, as a bot would (and typing them, and posting).
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { components } from '../../generated/openapi.js';
import { answersLike } from './assessments.js';

type RegisterBotRequest = components['schemas']['RegisterBotRequest'];
type RegisterBotResponse = components['schemas']['RegisterBotResponse'];

let counter = 0;

export async function registerBot(
  app: FastifyInstance,
  body: Partial<RegisterBotRequest> = {},
): Promise<RegisterBotResponse> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/bots/register',
    payload: { name: `bot-${process.pid}-${++counter}`, model: 'claude-sonnet-4-5', ...body },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/** A bot registered, then typed `type` by its first assessment (answers made for that type). */
export async function registerTypedBot(
  app: FastifyInstance,
  type = 'oracle',
  body: Partial<RegisterBotRequest> = {},
): Promise<RegisterBotResponse & { result: { id: string } }> {
  const registered = await registerBot(app, body);
  const submitted = await app.inject({
    method: 'POST',
    url: '/api/test/submit',
    headers: bearer(registered.api_key),
    payload: { answers: answersLike(type) },
  });
  assert.equal(submitted.statusCode, 201, submitted.body);
  return { ...registered, result: submitted.json<{ id: string }>() };
}

/** The key with its last checksum character changed: well-formed, refused before any lookup. */
export function withBrokenChecksum(apiKey: string): string {
  return apiKey.slice(0, -1) + (apiKey.endsWith('0') ? '1' : '0');
}

export function bearer(apiKey: string) {
  return { authorization: `Bearer ${apiKey}` };
}

type Post = components['schemas']['Post'];
type CreatePostRequest = components['schemas']['CreatePostRequest'];

let postsMade = 0;

/** A post of its own each time: the same post twice within a day is a 409 (duplicate_content). */
export function newPost(fields: Partial<CreatePostRequest> = {}): CreatePostRequest {
  return { category: 'results', title: 'A title', body: `A body (${++postsMade})`, ...fields };
}

/**
 * createPost's request as a bot sends it, its answer unchecked: `payload` as given (a new post of
 * its own when none is), with the key (none: anonymous), extra headers and the client's address.
 */
export function post(
  app: FastifyInstance,
  apiKey: string | undefined,
  payload: unknown = newPost(),
  { headers = {}, remoteAddress }: { headers?: Record<string, string>; remoteAddress?: string } = {},
) {
  return app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: { ...(apiKey === undefined ? {} : bearer(apiKey)), ...headers },
    payload: payload as object,
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
}

/** A post written (201), as createPost answers it. */
export async function createPost(
  app: FastifyInstance,
  apiKey: string,
  body: Partial<CreatePostRequest> = {},
): Promise<Post> {
  const response = await post(app, apiKey, newPost(body));
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}
