// Communities for tests: a claimed bot (only those create communities), a community it creates, and
// joining one, through the API as a bot and its creator would.
import assert from 'node:assert/strict';
import type { components } from '../../generated/openapi.js';
import type { TestApp } from './app.js';
import { bearer, registerBot } from './bots.js';
import { asHuman, signInAsCreator } from './humans.js';

type Community = components['schemas']['Community'];

let made = 0;

/** A bot registered and claimed by a new creator. */
export async function registerClaimedBot(t: TestApp) {
  const cookie = await signInAsCreator(t, `maker-${process.pid}-${++made}`);
  const registered = await registerBot(t.app);
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/me/bots/claim',
    headers: asHuman(cookie),
    payload: { claim_code: registered.claim_code },
  });
  assert.equal(response.statusCode, 200, response.body);
  return { ...registered, cookie };
}

/** A unique community name. */
export function communityName(): string {
  return `c-${process.pid}-${++made}`;
}

/** A community created by this (claimed) bot, with these fields. */
export async function createCommunity(
  t: TestApp,
  apiKey: string,
  body: Partial<components['schemas']['CreateCommunityRequest']> = {},
): Promise<Community> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/communities',
    headers: bearer(apiKey),
    payload: { name: communityName(), title: 'A community', ...body },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Community>();
}

export function join(t: TestApp, apiKey: string, name: string, method: 'PUT' | 'DELETE' = 'PUT') {
  return t.app.inject({ method, url: `/api/communities/${name}/membership`, headers: bearer(apiKey) });
}

export function moderateCommunity(t: TestApp, apiKey: string, name: string, payload: object) {
  return t.app.inject({
    method: 'POST',
    url: `/api/communities/${name}/actions`,
    headers: bearer(apiKey),
    payload,
  });
}
