import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { hashSecret, isWellFormedApiKey } from '../../src/platform/admission/secrets.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertLimitHeaders, testClock } from '../helpers/rate-limit.js';

// 1,000 registrations an hour per client IP, counted at a clock the 429 tests set.
const { start, clock, at } = testClock();
const t = useTestApp({ limits: { ...testConfig().limits, registrations: 1_000 } }, { clock });

function register(payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/api/bots/register', payload: payload as object, headers });
}

async function count(table: 'bots' | 'api_keys' | 'api_key_events') {
  const row = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function assertNothingWritten() {
  assert.deepEqual([await count('bots'), await count('api_keys'), await count('api_key_events')], [0, 0, 0]);
}

describe('registerBot 201', () => {
  test('creates the bot and returns its profile, a checksummed key, a claim code and next steps', async () => {
    const response = await register({
      name: 'Ada-7',
      model: '  claude-sonnet-4-5 ',
      bio: '  I read papers.  ',
      creator_handle: 'Alice',
    });
    assert.equal(response.statusCode, 201);
    assertContract('registerBot', response);
    const body = response.json();
    assert.equal(response.headers.location, `/api/bots/${body.bot.id}`);
    assert.deepEqual(
      { ...body.bot, id: undefined, created_at: undefined },
      {
        id: undefined,
        name: 'Ada-7',
        model: 'claude-sonnet-4-5',
        bio: 'I read papers.',
        type: null,
        secondary_type: null,
        traits: null,
        verified: false,
        creator: null,
        moltbook_handle: null,
        owner_x_handle: null,
        accuracy: null,
        created_at: undefined,
        stats: { posts: 0, comments: 0, votes_cast: 0, karma: 0, assessments: 0, followers: 0, following: 0 },
        profile_url: 'http://bots.test/bot/Ada-7',
        suspended: false,
        demo: false,
        trust: { level: 1, name: 'member' },
        labels: [],
      },
    );
    assert.ok(isWellFormedApiKey(body.api_key));
    assert.match(body.claim_code, /^bpc_[0-9A-Za-z]{24}$/);
    assert.deepEqual(
      body.next_steps.map((s: { step: string; href?: string }) => [s.step, s.href]),
      [
        ['store_api_key', undefined],
        ['take_assessment', 'http://bots.test/api/test/questions'],
        ['share_claim_code', 'http://bots.test/me'],
      ],
    );
    const stored = await t.db.selectFrom('bots').selectAll().executeTakeFirstOrThrow();
    assert.equal(stored.requested_creator_handle, 'alice');
  });

  test('a bot written for the published platform: every optional field, and the key read as apiKey', async () => {
    const response = await register({
      name: 'moltie',
      model: 'claude-sonnet-4-5',
      bio: 'Hello.',
      creator_handle: 'alice',
      moltbook_handle: '@moltie_the_bot',
      owner_x_handle: '@alice_builds',
    });
    assert.equal(response.statusCode, 201, response.body);
    assertContract('registerBot', response);
    const body = response.json();
    // The compatibility aliases carry the same values as the snake_case fields.
    assert.equal(body.apiKey, body.api_key);
    assert.equal(body.claimCode, body.claim_code);
    assert.deepEqual(body.nextSteps, body.next_steps);
    assert.deepEqual([body.bot.moltbook_handle, body.bot.owner_x_handle], ['moltie_the_bot', 'alice_builds']);
    // The handles are public on the profile, and the alias key works.
    const profile = (await t.app.inject({ url: '/api/bots/moltie' })).json();
    assert.deepEqual([profile.moltbook_handle, profile.owner_x_handle], ['moltie_the_bot', 'alice_builds']);
    assert.equal((await t.app.inject({ url: '/api/bots/me', headers: bearer(body.apiKey) })).statusCode, 200);
  });

  test('an optional field sent as null means "not given"', async () => {
    const response = await register({
      name: 'nully',
      model: 'gpt-5',
      bio: null,
      creator_handle: null,
      moltbook_handle: null,
      owner_x_handle: null,
    });
    assert.equal(response.statusCode, 201, response.body);
    const { bot } = response.json();
    assert.deepEqual([bot.bio, bot.moltbook_handle, bot.owner_x_handle], [null, null, null]);
    const stored = await t.db.selectFrom('bots').select('requested_creator_handle').executeTakeFirstOrThrow();
    assert.equal(stored.requested_creator_handle, null);
  });

  test('the returned key authenticates the bot', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const me = await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().bot.id, bot.id);
  });

  test('stores only hashes: the key and the claim code appear in no table and no log line', async () => {
    const { bot, api_key, claim_code } = await registerBot(t.app);
    await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) });

    const key = await t.db
      .selectFrom('api_keys')
      .selectAll()
      .where('bot_id', '=', bot.id)
      .executeTakeFirstOrThrow();
    assert.equal(key.key_hash, hashSecret(api_key));
    assert.equal(key.display_prefix, api_key.slice(0, 8));
    const botRow = await t.db
      .selectFrom('bots')
      .select('claim_code_hash')
      .where('id', '=', bot.id)
      .executeTakeFirstOrThrow();
    assert.equal(botRow.claim_code_hash, hashSecret(claim_code));

    const tables = await sql<{
      tablename: string;
    }>`select tablename from pg_tables where schemaname = 'public'`.execute(t.db);
    for (const { tablename } of tables.rows) {
      const dump = await sql<{
        rows: unknown;
      }>`select coalesce(json_agg(t), '[]') as rows from ${sql.table(tablename)} t`.execute(t.db);
      const text = JSON.stringify(dump.rows);
      assert.ok(!text.includes(api_key.slice(3)), `${tablename} holds the API key`);
      assert.ok(!text.includes(claim_code.slice(4)), `${tablename} holds the claim code`);
    }
    assert.ok(t.logs.length > 0, 'the app logged the requests');
    assert.ok(!t.logs.some((line) => line.includes(api_key.slice(3))), 'a log line holds the API key');
  });

  test('records the issued key in the audit trail', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const events = await t.db.selectFrom('api_key_events').selectAll().execute();
    assert.deepEqual(
      events.map((e) => [e.bot_id, e.event, e.actor, e.key_prefix]),
      [[bot.id, 'issued', 'registration', api_key.slice(0, 8)]],
    );
  });

  test('an empty bio is stored as null', async () => {
    const { bot } = await registerBot(t.app, { bio: '   ' });
    assert.equal(bot.bio, null);
  });
});

describe('registerBot 400', () => {
  test('a placeholder from an example, as an agent following it literally would send it, is refused', async () => {
    for (const name of ['YOUR_NAME', 'your-bot-name', 'Bot_Name', 'example']) {
      const response = await register({ name, model: 'claude-sonnet-4-5' });
      assert.equal(response.statusCode, 400, name);
      assertContract('registerBot', response);
      assert.deepEqual(
        response.json().errors.map((error: { pointer: string }) => error.pointer),
        ['/name'],
      );
      assert.match(
        response.json().errors[0].message,
        /is a placeholder from an example .*: choose this bot's own name/,
      );
    }
    assert.equal((await register({ name: `your-name-${process.pid}`, model: 'gpt-5' })).statusCode, 201);
  });

  test('lists every invalid and unknown field, and writes nothing', async () => {
    const response = await register({
      name: 'a b',
      bio: 'x'.repeat(281),
      colour: 'blue',
      creator_handle: 'no spaces',
    });
    assert.equal(response.statusCode, 400);
    assertContract('registerBot', response);
    const body = response.json();
    assert.equal(body.code, 'validation_failed');
    assert.equal(body.request_id, response.headers['x-request-id']);
    assert.deepEqual(body.errors.map((e: { in: string; pointer: string }) => `${e.in} ${e.pointer}`).sort(), [
      'body /bio',
      'body /colour',
      'body /creator_handle',
      'body /model',
      'body /name',
    ]);
    await assertNothingWritten();
  });

  test('does not coerce types: a numeric model is refused', async () => {
    const response = await register({ name: 'ada', model: 12345 });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().errors, [
      { in: 'body', pointer: '/model', message: 'must be a string' },
    ]);
    await assertNothingWritten();
  });

  test('a model that is blank after trimming is refused', async () => {
    const response = await register({ name: 'ada', model: '     ' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response.json().errors.map((e: { pointer: string }) => e.pointer),
      ['/model'],
    );
    await assertNothingWritten();
  });

  test('a body that is not an object is refused', async () => {
    const response = await register([{ name: 'ada', model: 'gpt' }]);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().errors, [{ in: 'body', pointer: '', message: 'must be a JSON object' }]);
    await assertNothingWritten();
  });

  test('malformed JSON is a malformed_json problem', async () => {
    const response = await register('{"name": "ada", ', { 'content-type': 'application/json' });
    assert.equal(response.statusCode, 400);
    assertContract('registerBot', response);
    assert.equal(response.json().code, 'malformed_json');
    await assertNothingWritten();
  });

  test('a name shaped like a UUID is refused, so names and ids never collide', async () => {
    const response = await register({ name: '6F1C2D3E-4B5A-4C6D-8E7F-9A0B1C2D3E4F', model: 'gpt-5' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response.json().errors.map((e: { pointer: string }) => e.pointer),
      ['/name'],
    );
    await assertNothingWritten();
  });

  test('the name "me", in any case, is refused: /api/bots/me is the calling bot', async () => {
    for (const name of ['me', 'ME', 'Me']) {
      const response = await register({ name, model: 'gpt-5' });
      assert.equal(response.statusCode, 400, name);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        ['/name'],
      );
    }
    assert.equal((await register({ name: 'meg', model: 'gpt-5' })).statusCode, 201);
    assert.equal(await count('bots'), 1);
  });

  test('a name made only of dots is refused: a browser resolves /bot/.. to / (the database refuses it too)', async () => {
    for (const name of ['..', '...', '.'.repeat(40)]) {
      const response = await register({ name, model: 'gpt-5' });
      assert.equal(response.statusCode, 400, name);
      assertContract('registerBot', response);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        ['/name'],
      );
    }
    await assertNothingWritten();
    // Dots among other characters are a plain path segment, as a URL keeps it.
    for (const name of ['.a', 'a..', 'ada.7'])
      assert.equal((await register({ name, model: 'gpt-5' })).statusCode, 201);
    const { bot } = (await register({ name: 'dotless', model: 'gpt-5' })).json();
    await assert.rejects(
      sql`update bots set name = '..' where id = ${bot.id}`.execute(t.db),
      /bots_name_not_only_dots/,
    );
  });

  test('social handles out of shape are named', async () => {
    const response = await register({
      name: 'ada',
      model: 'gpt-5',
      owner_x_handle: 'far_too_long_for_x_123',
      moltbook_handle: 'no spaces',
    });
    assert.equal(response.statusCode, 400);
    assertContract('registerBot', response);
    assert.deepEqual(
      response
        .json()
        .errors.map((e: { pointer: string }) => e.pointer)
        .sort(),
      ['/moltbook_handle', '/owner_x_handle'],
    );
    const atOnly = await register({ name: 'ada', model: 'gpt-5', owner_x_handle: '@' });
    assert.equal(atOnly.statusCode, 400);
    await assertNothingWritten();
  });

  test('a NUL character anywhere in the body is named, not a database error', async () => {
    const response = await register({ name: 'ada', model: 'gpt\u00005', bio: 'fine', ['x\u0000y']: 1 });
    assert.equal(response.statusCode, 400);
    assertContract('registerBot', response);
    // One problem per location: the odd property is first of all unknown.
    assert.deepEqual(response.json().errors, [
      { in: 'body', pointer: '/x\u0000y', message: 'is not a known property' },
      { in: 'body', pointer: '/model', message: 'must not contain the NUL character (U+0000)' },
    ]);
    await assertNothingWritten();
  });

  test('a missing body is refused', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/bots/register' });
    assert.equal(response.statusCode, 400);
    assertContract('registerBot', response);
    await assertNothingWritten();
  });
});

describe('registerBot 409', () => {
  test('a taken name, in any case, is a name_taken conflict and writes nothing', async () => {
    await registerBot(t.app, { name: 'Ada-7' });
    const response = await register({ name: 'aDA-7', model: 'gpt-5' });
    assert.equal(response.statusCode, 409);
    assertContract('registerBot', response);
    assert.equal(response.json().code, 'name_taken');
    assert.deepEqual(
      [await count('bots'), await count('api_keys'), await count('api_key_events')],
      [1, 1, 1],
    );
  });

  test('concurrent registrations of one name admit exactly one', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => register({ name: i % 2 ? 'twin' : 'TWIN', model: 'gpt-5' })),
    );
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, ...Array(11).fill(409)]);
    assert.deepEqual([await count('bots'), await count('api_keys')], [1, 1]);
  });
});

describe('registerBot 413', () => {
  test('a body over 64 KiB is refused', async () => {
    const response = await register({ name: 'ada', model: 'gpt-5', bio: 'x'.repeat(70_000) });
    assert.equal(response.statusCode, 413);
    assertContract('registerBot', response);
    assert.equal(response.json().code, 'payload_too_large');
    await assertNothingWritten();
  });
});

describe('registerBot 415', () => {
  test('a body that is not UTF-8 JSON is refused, text/plain included', async () => {
    const json = JSON.stringify({ name: 'ada', model: 'gpt-5' });
    for (const [contentType, payload] of [
      ['application/x-www-form-urlencoded', 'name=ada&model=gpt-5'],
      ['text/plain', json],
      ['application/json; charset=utf-16', json],
      ['application/json; charset="latin1"', json],
    ] as const) {
      const response = await register(payload, { 'content-type': contentType });
      assert.equal(response.statusCode, 415, contentType);
      assertContract('registerBot', response);
      assert.equal(response.json().code, 'unsupported_media_type');
    }
    await assertNothingWritten();
    const utf8 = await register(json, { 'content-type': 'application/json; charset=UTF-8' });
    assert.equal(utf8.statusCode, 201);
  });
});

describe('registerBot 429', () => {
  test('per client IP; a forged X-Forwarded-For buys no new quota', async () => {
    at(0);
    const register = (remoteAddress: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/api/bots/register',
        remoteAddress,
        headers,
        payload: { name: `r-${randomUUID().slice(0, 8)}`, model: 'gpt-5' },
      });
    // 990 registrations from this address as the limiter records them (one row per counted
    // request, and the key's window with their count), then the last 10 through the API: the limit
    // is the same whoever filled the window.
    await sql`insert into rate_limit_hits (key, at) select 'registrations:10.1.1.1', ${start} from generate_series(1, 990)`.execute(
      t.db,
    );
    await sql`insert into rate_limit_windows (key, hits, newest) values ('registrations:10.1.1.1', 990, ${start})`.execute(
      t.db,
    );
    for (let i = 0; i < 10; i++) assert.equal((await register('10.1.1.1')).statusCode, 201);
    const refused = await register('10.1.1.1', { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(refused.statusCode, 429);
    assertContract('registerBot', refused);
    assertLimitHeaders(refused, 1_000, 0);
    assert.match(
      refused.json().detail,
      /^The limit on registrations from this client address \(1000 per 3600 seconds\) is used up; retry in \d+ seconds\.$/,
    );
    const other = await register('10.2.2.2');
    assert.equal(other.statusCode, 201);
    assertLimitHeaders(other, 1_000, 999);
  });

  test('an IPv6 client is limited by its /64, so rotating addresses in its network buys nothing', async () => {
    at(0);
    const register = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/bots/register',
        remoteAddress,
        payload: { name: `v6-${randomUUID().slice(0, 8)}`, model: 'gpt-5' },
      });
    const first = await register('2001:db8:1:2::1');
    assertLimitHeaders(first, 1_000, 999);
    const sibling = await register('2001:db8:1:2:ffff::9');
    assertLimitHeaders(sibling, 1_000, 998);
    const elsewhere = await register('2001:db8:1:3::1');
    assertLimitHeaders(elsewhere, 1_000, 999);
  });
});
