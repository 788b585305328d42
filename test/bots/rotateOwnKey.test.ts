import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { displayPrefix, isWellFormedApiKey } from '../../src/platform/admission/secrets.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { serverUrl } from '../helpers/database.js';
import { bearer, registerBot, withBrokenChecksum } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertLimitHeaders } from '../helpers/rate-limit.js';

const limit = 3;
const t = useTestApp({ limits: { ...testConfig().limits, 'key-rotations': limit } });

function rotate(apiKey: string, idempotencyKey?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/bots/me/keys',
    headers: {
      ...bearer(apiKey),
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
  });
}

function postWithKey(apiKey: string, idempotencyKey: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: { ...bearer(apiKey), 'idempotency-key': idempotencyKey },
    payload: { category: 'results', title: 'Keyed', body: 'A post with an Idempotency-Key.' },
  });
}

async function rotations(botId: string) {
  const rows = await t.db
    .selectFrom('api_key_events')
    .select('id')
    .where('bot_id', '=', botId)
    .where('event', '=', 'rotated')
    .execute();
  return rows.length;
}

function patchBio(apiKey: string) {
  return t.app.inject({
    method: 'PATCH',
    url: '/api/bots/me',
    headers: bearer(apiKey),
    payload: { bio: 'Rotated.' },
  });
}

function whoAmI(apiKey: string) {
  return t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) });
}

async function liveKeys(botId: string) {
  return t.db
    .selectFrom('api_keys')
    .select('display_prefix')
    .where('bot_id', '=', botId)
    .where('revoked_at', 'is', null)
    .execute();
}

describe('rotateOwnKey 201', () => {
  test('a new key, shown once; the key that called is refused from the very next request', async () => {
    const { bot, api_key: oldKey } = await registerBot(t.app);
    const response = await rotate(oldKey);
    assert.equal(response.statusCode, 201, response.body);
    assertContract('rotateOwnKey', response);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    assertLimitHeaders(response, limit, limit - 1);
    const { api_key: newKey, created_at } = response.json();
    assert.ok(isWellFormedApiKey(newKey));
    assert.notEqual(newKey, oldKey);
    assert.ok(Math.abs(Date.parse(created_at) - Date.now()) < 60_000);

    assert.equal((await whoAmI(oldKey)).statusCode, 401);
    const me = await whoAmI(newKey);
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().bot.id, bot.id);
    assert.deepEqual(await liveKeys(bot.id), [{ display_prefix: displayPrefix(newKey) }]);
  });

  test('the old key is refused by every instance on the database at once', async () => {
    const other = await buildApp({ config: testConfig(), db: t.db });
    try {
      const { api_key: oldKey } = await registerBot(t.app);
      assert.equal((await other.inject({ url: '/api/bots/me', headers: bearer(oldKey) })).statusCode, 200);
      const { api_key: newKey } = (await rotate(oldKey)).json();
      assert.equal((await other.inject({ url: '/api/bots/me', headers: bearer(oldKey) })).statusCode, 401);
      assert.equal((await other.inject({ url: '/api/bots/me', headers: bearer(newKey) })).statusCode, 200);
    } finally {
      await other.close();
    }
  });

  test('the rotation is in the key history, the bot itself its actor', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const { api_key: newKey } = (await rotate(api_key)).json();
    const events = await t.db
      .selectFrom('api_key_events')
      .select(['event', 'actor', 'key_prefix'])
      .where('bot_id', '=', bot.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(events, [
      { event: 'issued', actor: 'registration', key_prefix: displayPrefix(api_key) },
      { event: 'rotated', actor: 'bot', key_prefix: displayPrefix(newKey) },
    ]);
  });

  test('two rotations with one key at once: one new key, the other refused', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const answers = await Promise.all([rotate(api_key), rotate(api_key), rotate(api_key)]);
    const statuses = answers.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 401, 401], answers.map((r) => r.body).join('\n'));
    const issued = answers.find((r) => r.statusCode === 201)!.json().api_key;
    assert.deepEqual(await liveKeys(bot.id), [{ display_prefix: displayPrefix(issued) }]);
  });
});

describe('rotateOwnKey 401', () => {
  test('no key, a broken key, an unknown key or a rotated one rotate nothing', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const { api_key: current } = (await rotate(api_key)).json();
    for (const headers of [{}, bearer(withBrokenChecksum(current)), bearer(api_key)]) {
      const response = await t.app.inject({ method: 'POST', url: '/api/bots/me/keys', headers });
      assert.equal(response.statusCode, 401, response.body);
      assertContract('rotateOwnKey', response);
      assert.equal(response.headers['cache-control'], 'private, no-store');
    }
    assert.deepEqual(await liveKeys(bot.id), [{ display_prefix: displayPrefix(current) }]);
  });
});

describe('rotateOwnKey 429', () => {
  test(`the ${limit + 1}th rotation within the hour is refused, and the key in hand still works`, async () => {
    let { api_key } = await registerBot(t.app);
    for (let i = 0; i < limit; i++) {
      const response = await rotate(api_key);
      assert.equal(response.statusCode, 201, response.body);
      api_key = response.json().api_key;
    }
    const refused = await rotate(api_key);
    assert.equal(refused.statusCode, 429);
    assertContract('rotateOwnKey', refused);
    assert.equal(refused.json().limit, limit);
    assertLimitHeaders(refused, limit, 0);
    assert.equal((await whoAmI(api_key)).statusCode, 200);
    const quota = (await whoAmI(api_key)).json().quota.key_rotations;
    assert.equal(quota.remaining, 0);
  });
});

describe('rotateOwnKey 201, replayed for its Idempotency-Key', () => {
  test('a lost answer is asked again with the old key: the same new key; the old key may do nothing else', async () => {
    const { bot, api_key: oldKey } = await registerBot(t.app);
    const key = randomUUID();
    const first = await rotate(oldKey, key);
    assert.equal(first.statusCode, 201, first.body);
    const newKey: string = first.json().api_key;

    const again = await rotate(oldKey, key);
    assert.equal(again.statusCode, 201, again.body);
    assertContract('rotateOwnKey', again);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['cache-control'], 'private, no-store');
    assert.deepEqual(again.json(), first.json());
    assert.equal(again.headers['x-ratelimit-remaining'], first.headers['x-ratelimit-remaining']);

    // The old key replays that rotation and nothing else.
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(oldKey) })).statusCode, 401);
    assert.equal((await rotate(oldKey, randomUUID())).statusCode, 401);
    assert.equal((await rotate(oldKey, undefined)).statusCode, 401);
    assert.equal((await postWithKey(oldKey, key)).statusCode, 401);
    // The new key works, one live key, and the key with another operation is a reuse.
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(newKey) })).statusCode, 200);
    const live = await t.db
      .selectFrom('api_keys')
      .select('id')
      .where('bot_id', '=', bot.id)
      .where('revoked_at', 'is', null)
      .execute();
    assert.equal(live.length, 1);
    assert.equal((await postWithKey(newKey, key)).statusCode, 422);
    // The new key never rests in the database readable.
    const stored = await t.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('bot_id', '=', bot.id)
      .execute();
    assert.equal(stored.length, 1);
    assert.ok(!JSON.stringify(stored).includes(newKey.slice(3)), 'the new key is stored sealed');
  });
});

describe('rotateOwnKey 401, a replay asked for too late', () => {
  const firstUses = [
    ['reads its own profile (bearerAuth)', (key: string) => whoAmI(key)],
    ['edits its profile (a limited statement)', (key: string) => patchBio(key)],
    ['posts (a limited write in a function)', (key: string) => postWithKey(key, randomUUID())],
  ] as const;
  for (const [what, use] of firstUses) {
    test(`once the new key ${what}, the old key's replay is a 401 like any retired key`, async () => {
      const { api_key: oldKey } = await registerBot(t.app);
      const key = randomUUID();
      const first = await rotate(oldKey, key);
      assert.equal(first.statusCode, 201, first.body);
      const newKey: string = first.json().api_key;
      const used = await use(newKey);
      assert.ok(used.statusCode < 300, used.body);
      const late = await rotate(oldKey, key);
      assert.equal(late.statusCode, 401, late.body);
      assertContract('rotateOwnKey', late);
      assert.doesNotMatch(late.body, new RegExp(newKey.slice(3)));
      assert.equal((await whoAmI(newKey)).statusCode, 200);
    });
  }

  test('the new key rotating itself, its first use: a key of its own, and the old key’s replay over', async () => {
    const { api_key: oldKey } = await registerBot(t.app);
    const key = randomUUID();
    const first = await rotate(oldKey, key);
    assert.equal(first.statusCode, 201, first.body);
    const again = await rotate(first.json().api_key);
    assert.equal(again.statusCode, 201, again.body);
    assert.equal((await whoAmI(again.json().api_key)).statusCode, 200);
    assert.equal((await whoAmI(first.json().api_key)).statusCode, 401);
    assert.equal((await rotate(oldKey, key)).statusCode, 401);
  });

  test('ten minutes after the rotation, the replay is a 401 even while the new key is unused', async () => {
    const { bot, api_key: oldKey } = await registerBot(t.app);
    const key = randomUUID();
    const first = await rotate(oldKey, key);
    assert.equal(first.statusCode, 201, first.body);
    await sql`update api_keys set created_at = now() - interval '9 minutes 50 seconds'
      where bot_id = ${bot.id} and revoked_at is null`.execute(t.db);
    assert.equal((await rotate(oldKey, key)).statusCode, 201, 'still within the ten minutes');
    await sql`update api_keys set created_at = now() - interval '10 minutes 1 second'
      where bot_id = ${bot.id} and revoked_at is null`.execute(t.db);
    const late = await rotate(oldKey, key);
    assert.equal(late.statusCode, 401, late.body);
    assert.equal((await whoAmI(first.json().api_key)).statusCode, 200);
  });
});

describe('rotateOwnKey 409', () => {
  test(`concurrent rotations with one key and one Idempotency-Key: one new key (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const { bot, api_key: oldKey } = await registerBot(t.app);
    const key = randomUUID();
    // As many as the limit (3 here): each is counted until the first commits and the others give theirs back.
    const answers = await Promise.all(Array.from({ length: limit }, () => rotate(oldKey, key)));
    const issued = new Set<string>();
    for (const answer of answers) {
      assertContract('rotateOwnKey', answer);
      if (answer.statusCode === 201) issued.add(answer.json().api_key);
      else assert.equal(answer.json().code, 'idempotency_key_in_use', answer.body);
    }
    assert.equal(issued.size, 1, answers.map((a) => `${a.statusCode} ${a.body}`).join('\n'));
    const events = await t.db
      .selectFrom('api_key_events')
      .select('id')
      .where('bot_id', '=', bot.id)
      .where('event', '=', 'rotated')
      .execute();
    assert.equal(events.length, 1);
    const again = await rotate(oldKey, key);
    assert.equal(again.json().api_key, [...issued][0]);
  });
});

describe('rotateOwnKey 400', () => {
  for (const [what, key] of [
    ['an empty Idempotency-Key', ''],
    ['an Idempotency-Key longer than 255', 'k'.repeat(256)],
    ['an Idempotency-Key not printable ASCII', 'cl\u00e9'],
  ] as const) {
    test(`${what}: a 400 naming the header; nothing rotated, the key still works`, async () => {
      const { bot, api_key } = await registerBot(t.app);
      const response = await rotate(api_key, key);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('rotateOwnKey', response);
      assert.deepEqual(
        response.json().errors.map((error: { in: string; pointer: string }) => [error.in, error.pointer]),
        [['header', '/idempotency-key']],
      );
      assert.equal(await rotations(bot.id), 0);
      assert.equal((await whoAmI(api_key)).statusCode, 200);
    });
  }
});

describe('rotateOwnKey 422', () => {
  test('the rotation’s Idempotency-Key sent again with the new key: a reuse, nothing rotated, no key shown', async () => {
    const { bot, api_key: oldKey } = await registerBot(t.app);
    const key = randomUUID();
    const first = await rotate(oldKey, key);
    assert.equal(first.statusCode, 201, first.body);
    const newKey: string = first.json().api_key;
    const reused = await rotate(newKey, key);
    assert.equal(reused.statusCode, 422, reused.body);
    assertContract('rotateOwnKey', reused);
    assert.equal(reused.json().code, 'idempotency_key_reused');
    assert.equal(await rotations(bot.id), 1);
    assert.equal((await whoAmI(newKey)).statusCode, 200);
    // That was the new key's first use: the old key's replay is over.
    assert.equal((await rotate(oldKey, key)).statusCode, 401);
  });

  test('an Idempotency-Key the bot used for another request: refused; nothing rotated', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const key = randomUUID();
    assert.equal((await postWithKey(api_key, key)).statusCode, 201);
    const reused = await rotate(api_key, key);
    assert.equal(reused.statusCode, 422, reused.body);
    assertContract('rotateOwnKey', reused);
    assert.equal(reused.json().code, 'idempotency_key_reused');
    assert.equal(await rotations(bot.id), 0);
    assert.equal((await whoAmI(api_key)).statusCode, 200);
  });
});
