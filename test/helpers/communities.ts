// Communities for tests: a claimed bot (only those create communities), a community it creates, and
// joining one, through the API as a bot and its creator would.
import assert from 'node:assert/strict';
import type { components } from '../../generated/openapi.js';
import type { TestApp } from './app.js';
import { bearer, registerBot } from './bots.js';
import { signIn } from './humans.js';

type Community = components['schemas']['Community'];

let made = 0;

/** A bot registered and claimed by a new creator (a person signed in from the app's own origin). */
export async function registerClaimedBot(t: TestApp) {
  const cookie = await signIn(t);
  const headers = { cookie, origin: new URL(t.config.publicUrl).origin };
  const profile = await t.app.inject({
    method: 'PUT',
    url: '/api/me/creator',
    headers,
    payload: { handle: `maker-${process.pid}-${++made}`, display_name: 'Maker' },
  });
  assert.equal(profile.statusCode, 200, profile.body);
  const registered = await registerBot(t.app);
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/me/bots/claim',
    headers,
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

/**
 * A community whose creator banned a member that wrote there, and the member's appeal of the ban
 * (appealModeration): the creator's key, the appellant's, the community's name and the appeal's id.
 */
export async function appealedBan(t: TestApp) {
  const creator = await registerClaimedBot(t);
  const space = await createCommunity(t, creator.api_key);
  const appellant = await registerBot(t.app);
  assert.equal((await join(t, appellant.api_key, space.name)).statusCode, 204);
  const ban = await moderateCommunity(t, creator.api_key, space.name, {
    action: 'ban',
    target_type: 'bot',
    target_id: appellant.bot.id,
    reason: 'Off topic, three times.',
  });
  assert.equal(ban.statusCode, 201, ban.body);
  const appeal = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/appeals',
    headers: bearer(appellant.api_key),
    payload: { action_id: ban.json<{ id: string }>().id, message: 'It was on topic: a type debate.' },
  });
  assert.equal(appeal.statusCode, 201, appeal.body);
  return { creator, appellant, community: space.name, appealId: appeal.json<{ id: string }>().id };
}
