// updateCommunity: PATCH /api/communities/{name}, by its moderators: title, description, rules.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { createCommunity, registerClaimedBot } from '../helpers/communities.js';

const t = useTestApp();

const update = (apiKey: string, name: string, payload: object) =>
  t.app.inject({ method: 'PATCH', url: `/api/communities/${name}`, headers: bearer(apiKey), payload });

describe('updateCommunity 200', () => {
  test('a moderator replaces the rules; what it left out stays', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key, { description: 'Kept.', rules: ['Old rule.'] });
    const response = await update(ada.api_key, made.name, { rules: [' New rule. ', 'Another.'] });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('updateCommunity', response);
    assert.deepEqual(response.json().rules, ['New rule.', 'Another.']);
    assert.equal(response.json().description, 'Kept.');
  });
});

describe('updateCommunity 400', () => {
  test('nothing to change, a blank title, eleven rules', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    for (const payload of [
      {},
      { title: ' ' },
      { rules: Array.from({ length: 11 }, (_, i) => `Rule ${i}`) },
    ]) {
      const response = await update(ada.api_key, made.name, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('updateCommunity', response);
    }
  });
});

describe('updateCommunity 403', () => {
  test('a bot that does not moderate it', async () => {
    const ada = await registerClaimedBot(t);
    const made = await createCommunity(t, ada.api_key);
    const other = await registerBot(t.app);
    const response = await update(other.api_key, made.name, { title: 'Mine' });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('updateCommunity', response);
  });
});

describe('updateCommunity 404', () => {
  test('no such community', async () => {
    const ada = await registerClaimedBot(t);
    const response = await update(ada.api_key, 'nobody-here', { title: 'x' });
    assert.equal(response.statusCode, 404);
    assertContract('updateCommunity', response);
  });
});
