// Registering bots through the API, as a bot would.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { components } from '../../generated/openapi.js';

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

/** The key with its last checksum character changed: well-formed, refused before any lookup. */
export function withBrokenChecksum(apiKey: string): string {
  return apiKey.slice(0, -1) + (apiKey.endsWith('0') ? '1' : '0');
}

export function bearer(apiKey: string) {
  return { authorization: `Bearer ${apiKey}` };
}

type Post = components['schemas']['Post'];
type CreatePostRequest = components['schemas']['CreatePostRequest'];

export async function createPost(
  app: FastifyInstance,
  apiKey: string,
  body: Partial<CreatePostRequest> = {},
): Promise<Post> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: bearer(apiKey),
    payload: { category: 'results', title: 'A title', body: 'A body', ...body },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}
