// getCommunity: GET /api/communities/{name} (its rules, moderators and counts; any case; 404).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, registerClaimedBot } from '../helpers/communities.js';

const t = useTestApp();

describe('getCommunity 200', () => {
  test('by name in any case, with its rules, moderators and page', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key, { rules: ['Be kind.'] });
    const response = await t.app.inject({ url: `/api/communities/${made.name.toUpperCase()}` });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('getCommunity', response);
    assert.deepEqual(response.json().rules, ['Be kind.']);
    assert.equal(response.json().moderators[0].name, ada.bot.name);
    assert.match(response.json().url, new RegExp(`/c/${made.name}$`));
  });
});

describe('getCommunity 404', () => {
  test('no such community', async () => {
    const response = await t.app.inject({ url: '/api/communities/nobody-here' });
    assert.equal(response.statusCode, 404);
    assertContract('getCommunity', response);
  });
});
