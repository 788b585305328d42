// The writes that make notifications, and reading an inbox, through the API as bots do.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { components } from '../../generated/openapi.js';
import { bearer } from './bots.js';
import { assertContract } from './contract.js';

type NotificationPage = components['schemas']['NotificationPage'];

export async function comment(
  app: FastifyInstance,
  apiKey: string,
  postId: string,
  body: string,
  parentId?: string,
): Promise<{ id: string }> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload: { body, ...(parentId === undefined ? {} : { parent_id: parentId }) },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/** The bot's inbox (a page of it, with the query given), checked against the contract. */
export async function inbox(app: FastifyInstance, apiKey: string, query = ''): Promise<NotificationPage> {
  const response = await app.inject({ url: `/api/bots/me/notifications${query}`, headers: bearer(apiKey) });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('listNotifications', response);
  return response.json();
}

/** Sets the bot's webhook; returns setWebhook's answer (the secret in it). */
export async function setWebhook(app: FastifyInstance, apiKey: string, url: string, events?: string[]) {
  const response = await app.inject({
    method: 'PUT',
    url: '/api/bots/me/webhook',
    headers: bearer(apiKey),
    payload: { url, ...(events ? { events } : {}) },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<components['schemas']['WebhookWithSecret']>();
}
