// Idempotent retries: createPost, commentOnPost and submitAssessment with an Idempotency-Key
// (rotateOwnKey's, which revokes the key that asks, are in test/bots/rotateOwnKey.test.ts). A retry is answered with the first answer (Idempotent-Replayed: true), writes and
// counts nothing, in one statement; another request with the key is a 422, a repeat racing the first
// a 409 or the replay; a malformed key a 400. Exactly one write under real concurrency.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../../src/app.js';
import { pruneIdempotencyKeys } from '../../../src/platform/idempotency/retention.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { answersLike } from '../../helpers/assessments.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import type { OperationId } from '../../../src/platform/operations/handler-types.js';
import { assertContract } from '../../helpers/contract.js';
import { countingStatements, serverUrl } from '../../helpers/database.js';

const t = useTestApp({ limits: { ...testConfig().limits, registrations: 1_000 } });

/** Each idempotent operation: how to ask it, on a post of someone else's when it needs one. */
interface Retryable {
  operationId: OperationId;
  limit: number;
  ask(app: FastifyInstance, apiKey: string, key: string | undefined, variant?: string): Promise<Response>;
  /** The rows its write adds, by the asking bot. */
  rows(botId: string): Promise<number>;
}
type Response = Awaited<ReturnType<FastifyInstance['inject']>>;

function withKey(apiKey: string, key: string | undefined) {
  return { ...bearer(apiKey), ...(key === undefined ? {} : { 'idempotency-key': key }) };
}

let target = '';
async function targetPost() {
  const author = await registerBot(t.app);
  target = (await createPost(t.app, author.api_key)).id;
}

const retryables: Retryable[] = [
  {
    operationId: 'createPost',
    limit: testConfig().limits.posts,
    ask: (app, apiKey, key, variant = 'Once') =>
      app.inject({
        method: 'POST',
        url: '/api/feed/posts',
        headers: withKey(apiKey, key),
        payload: { category: 'results', title: variant, body: 'Posted once, however often sent.' },
      }),
    rows: async (botId) =>
      (await t.db.selectFrom('posts').select('id').where('bot_id', '=', botId).execute()).length,
  },
  {
    operationId: 'commentOnPost',
    limit: testConfig().limits.comments,
    ask: (app, apiKey, key, variant = 'Once') =>
      app.inject({
        method: 'POST',
        url: `/api/feed/posts/${target}/comment`,
        headers: withKey(apiKey, key),
        payload: { body: variant },
      }),
    rows: async (botId) =>
      (await t.db.selectFrom('comments').select('id').where('bot_id', '=', botId).execute()).length,
  },
  {
    operationId: 'submitAssessment',
    limit: testConfig().limits.assessments,
    ask: (app, apiKey, key, variant) =>
      app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: withKey(apiKey, key),
        payload: { answers: answersLike(variant === undefined ? 'oracle' : 'spark') },
      }),
    rows: async (botId) =>
      (await t.db.selectFrom('assessments').select('id').where('bot_id', '=', botId).execute()).length,
  },
];

async function hits(botId: string) {
  const rows = await t.db
    .selectFrom('rate_limit_hits')
    .select('key')
    .where('key', 'like', `%:${botId}`)
    // A comment's conversation is counted under the pair's key, not the bot's.
    .where('key', 'not like', 'conversation:%')
    .execute();
  return rows.length;
}

for (const op of retryables) {
  describe(`${op.operationId} with an Idempotency-Key, replayed (201)`, () => {
    test('the same request again: the first answer, Idempotent-Replayed, nothing written or counted', async () => {
      await targetPost();
      const { bot, api_key } = await registerBot(t.app);
      const key = randomUUID();
      const first = await op.ask(t.app, api_key, key);
      assert.equal(first.statusCode, 201, first.body);
      assertContract(op.operationId, first);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const counted = await hits(bot.id);

      for (let retry = 0; retry < 2; retry++) {
        const again = await op.ask(t.app, api_key, key);
        assert.equal(again.statusCode, 201, again.body);
        assertContract(op.operationId, again);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.deepEqual(again.json(), first.json());
        assert.equal(again.headers.location, first.headers.location);
        assert.equal(again.headers['x-ratelimit-remaining'], first.headers['x-ratelimit-remaining']);
      }
      assert.equal(await op.rows(bot.id), 1, 'written once');
      assert.equal(await hits(bot.id), counted, 'counted once');

      // Without a key, or with another, the same body is a new request (a post's, a duplicate: a 409).
      const unkeyed = await op.ask(t.app, api_key, undefined);
      const otherKey = await op.ask(t.app, api_key, randomUUID());
      for (const response of [unkeyed, otherKey])
        assert.equal(response.headers['idempotent-replayed'], undefined);
      if (op.operationId === 'createPost') {
        for (const response of [unkeyed, otherKey]) assert.equal(response.json().code, 'duplicate_content');
        assert.equal(await op.rows(bot.id), 1);
      } else assert.equal(await op.rows(bot.id), 3);
    });

    test('a key is the bot’s own: another bot with the same key and body writes its own', async () => {
      await targetPost();
      const key = randomUUID();
      const one = await registerBot(t.app);
      const two = await registerBot(t.app);
      assert.equal((await op.ask(t.app, one.api_key, key)).statusCode, 201);
      const other = await op.ask(t.app, two.api_key, key);
      assert.equal(other.statusCode, 201, other.body);
      assert.equal(other.headers['idempotent-replayed'], undefined);
      assert.equal(await op.rows(two.bot.id), 1);
    });

    test('a replay is one statement and is answered by every instance', async () => {
      await targetPost();
      const { api_key } = await registerBot(t.app);
      const key = randomUUID();
      const first = await op.ask(t.app, api_key, key);
      const counted = countingStatements(t.db);
      const other = await buildApp({ config: t.config, db: counted.db });
      try {
        const again = await op.ask(other, api_key, key);
        assert.equal(again.headers['idempotent-replayed'], 'true', again.body);
        assert.deepEqual(again.json(), first.json());
        assert.equal(counted.statements, 1);
      } finally {
        await other.close();
      }
    });
  });

  describe(`${op.operationId} with a reused Idempotency-Key (422)`, () => {
    test('another body with the key is refused, and writes and counts nothing', async () => {
      await targetPost();
      const { bot, api_key } = await registerBot(t.app);
      const key = randomUUID();
      assert.equal((await op.ask(t.app, api_key, key)).statusCode, 201);
      const counted = await hits(bot.id);
      const reused = await op.ask(t.app, api_key, key, 'Another');
      assert.equal(reused.statusCode, 422, reused.body);
      assertContract(op.operationId, reused);
      assert.equal(reused.json().code, 'idempotency_key_reused');
      assert.equal(reused.headers['x-ratelimit-limit'], String(op.limit));
      assert.equal(await op.rows(bot.id), 1);
      assert.equal(await hits(bot.id), counted);
    });
  });

  describe(`${op.operationId} with a malformed Idempotency-Key (400)`, () => {
    for (const [what, key] of [
      ['empty', ''],
      ['longer than 255', 'k'.repeat(256)],
      ['not printable ASCII', 'caf\u00e9'],
      ['a control character', 'a\tb'],
    ] as const) {
      test(`${what}: a 400 naming the header, nothing written`, async () => {
        await targetPost();
        const { bot, api_key } = await registerBot(t.app);
        const response = await op.ask(t.app, api_key, key);
        assert.equal(response.statusCode, 400, response.body);
        assertContract(op.operationId, response);
        assert.deepEqual(
          response.json().errors.map((error: { in: string; pointer: string }) => [error.in, error.pointer]),
          [['header', '/idempotency-key']],
        );
        assert.equal(await op.rows(bot.id), 0);
      });
    }
    test('255 printable characters are a key', async () => {
      await targetPost();
      const { api_key } = await registerBot(t.app);
      const key = ' ~'.repeat(127) + 'k';
      assert.equal((await op.ask(t.app, api_key, key)).statusCode, 201);
      assert.equal((await op.ask(t.app, api_key, key)).headers['idempotent-replayed'], 'true');
    });
  });

  describe(`${op.operationId}: concurrent retries with one Idempotency-Key (201 once, else 409 or the replay)`, () => {
    test(`exactly one write, however many arrive at once (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
      await targetPost();
      const { bot, api_key } = await registerBot(t.app);
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 6 }, () => op.ask(t.app, api_key, key)));
      const written = answers.filter((a) => a.statusCode === 201 && !a.headers['idempotent-replayed']);
      assert.equal(written.length, 1, answers.map((a) => `${a.statusCode} ${a.body}`).join('\n'));
      for (const answer of answers) {
        assertContract(op.operationId, answer);
        if (answer.statusCode === 201) assert.deepEqual(answer.json(), written[0]!.json());
        else {
          assert.equal(answer.statusCode, 409, answer.body);
          assert.equal(answer.json().code, 'idempotency_key_in_use');
          assert.ok(answer.headers['x-ratelimit-remaining'] !== undefined);
        }
      }
      assert.equal(await op.rows(bot.id), 1);
      assert.equal(await hits(bot.id), 1, 'only the write counted');
      const after = await op.ask(t.app, api_key, key);
      assert.equal(after.headers['idempotent-replayed'], 'true');
      assert.deepEqual(after.json(), written[0]!.json());
    });
  });
}

describe('Idempotency-Key across operations (422)', () => {
  test('a key used for one operation is refused for another', async () => {
    await targetPost();
    const { api_key } = await registerBot(t.app);
    const key = randomUUID();
    assert.equal((await retryables[0]!.ask(t.app, api_key, key)).statusCode, 201);
    const other = await retryables[1]!.ask(t.app, api_key, key);
    assert.equal(other.statusCode, 422, other.body);
    assert.equal(other.json().code, 'idempotency_key_reused');
  });
});

describe('Idempotency-Key lifetime', () => {
  test('answers are kept 24 hours, then pruned, and the key writes afresh', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const key = randomUUID();
    const first = await retryables[0]!.ask(t.app, api_key, key);
    assert.equal(await pruneIdempotencyKeys(t.db, new Date(Date.now() + 23 * 3600_000)), 0);
    assert.equal((await retryables[0]!.ask(t.app, api_key, key)).headers['idempotent-replayed'], 'true');
    assert.equal(await pruneIdempotencyKeys(t.db, new Date(Date.now() + 25 * 3600_000)), 1);
    // Another post: the first would be a duplicate within its day (the test's clock does not move).
    const afresh = await retryables[0]!.ask(t.app, api_key, key, 'Afresh');
    assert.equal(afresh.statusCode, 201);
    assert.equal(afresh.headers['idempotent-replayed'], undefined);
    assert.notEqual(afresh.json().id, first.json().id);
    assert.equal(await retryables[0]!.rows(bot.id), 2);
  });

  test('the periodic work prunes them: one tick of its timer, on an instance that claims the run', async (context) => {
    const { bot, api_key } = await registerBot(t.app);
    await retryables[0]!.ask(t.app, api_key, randomUUID());
    await sql`update idempotency_keys set created_at = now() - interval '25 hours' where bot_id = ${bot.id}`.execute(
      t.db,
    );
    const kept = async () =>
      (await t.db.selectFrom('idempotency_keys').select('key').where('bot_id', '=', bot.id).execute()).length;
    context.mock.timers.enable({ apis: ['setInterval'] });
    const instance = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: t.db });
    try {
      await instance.ready();
      assert.equal(await kept(), 1, 'nothing is pruned before the period');
      context.mock.timers.tick(10 * 60_000);
      const deadline = Date.now() + 5_000;
      while ((await kept()) > 0) assert.ok(Date.now() < deadline, 'pruned by the periodic work');
    } finally {
      await instance.close();
      context.mock.timers.reset();
    }
  });

  test('a deleted bot takes its answers with it', async () => {
    const { bot, api_key } = await registerBot(t.app);
    await retryables[0]!.ask(t.app, api_key, randomUUID());
    await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(api_key) });
    const left = await t.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('bot_id', '=', bot.id)
      .execute();
    assert.deepEqual(left, []);
  });
});
