// Exactness of the sliding-window limiter: a property test over random request times, and real
// concurrency, within one server and across two instances sharing the database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { slidingWindowStore, windowSeconds } from '../../../src/platform/admission/sliding-window.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { bearer, registerBot } from '../../helpers/bots.js';
import { serverUrl } from '../../helpers/database.js';

const windowMs = windowSeconds * 1000;
let now = new Date('2026-11-20T12:00:00.000Z');
// One client fires every request here: the per-IP cap is lifted so that only the per-bot limit is measured.
const t = useTestApp(
  { limits: { ...loadConfig({}).limits, registrations: 10_000 }, ipLimitFactor: 1_000_000 },
  { clock: () => now },
);

/** A small deterministic PRNG (mulberry32), so a failing sequence can be replayed from its seed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('sliding window, property', () => {
  test('for random request times: never more than max in any window, never fewer, and an exact Retry-After', async () => {
    const Store = slidingWindowStore(t.db, () => now);
    const store = new Store();
    const incr = (key: string, max: number) =>
      new Promise<{ current: number; ttl: number }>((resolve, reject) =>
        store.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), windowMs, max),
      );

    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const max = 1 + Math.floor(next() * 6);
      const key = `property:${seed}`;
      const admitted: number[] = [];
      let time = Date.parse('2026-11-20T00:00:00.000Z');
      for (let request = 0; request < 35; request++) {
        const kind = next();
        // Bursts, minutes apart, hours apart, and hits landing exactly where an admitted one leaves.
        if (kind < 0.35) time += Math.floor(next() * 1_000);
        else if (kind < 0.7) time += Math.floor(next() * 20 * 60_000);
        else if (kind < 0.85) time += Math.floor(next() * 2 * windowMs);
        else if (admitted.length > 0)
          time = Math.max(time, admitted[Math.floor(next() * admitted.length)]! + windowMs);
        now = new Date(time);

        const inWindow = admitted.filter((a) => a > time - windowMs && a <= time);
        const { current, ttl } = await incr(key, max);
        const context = `seed ${seed}, request ${request}, max ${max}`;
        if (current <= max) {
          assert.ok(inWindow.length < max, `admitted over the limit: ${context}`);
          assert.equal(current, inWindow.length + 1, context);
          admitted.push(time);
        } else {
          assert.equal(inWindow.length, max, `refused under the limit: ${context}`);
          assert.equal(ttl, Math.min(...inWindow) + windowMs - time, `Retry-After is not exact: ${context}`);
        }
      }
      for (const a of admitted) {
        assert.ok(
          admitted.filter((b) => b >= a && b < a + windowMs).length <= max,
          `a window holds more than ${max}: seed ${seed}`,
        );
      }
    }
  });
});

async function fireTogether(urls: string[], apiKey: string, count: number) {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      fetch(`${urls[i % urls.length]}/api/feed/posts`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ category: 'results', title: `t${i}`, body: 'b' }),
      }),
    ),
  );
  return responses.map((r) => r.status);
}

describe('sliding window, out-of-order times', () => {
  test('a request timed before a hit that was recorded first still counts that hit', async () => {
    // What happens when a request reads the clock, then waits for the key's lock behind a request
    // that read the clock later: its time must not go back before hits already recorded.
    const Store = slidingWindowStore(t.db, () => now);
    const store = new Store();
    const incr = () =>
      new Promise<{ current: number }>((resolve, reject) =>
        store.incr(
          'out-of-order',
          (error, result) => (error ? reject(error) : resolve(result!)),
          windowMs,
          10,
        ),
      );
    const base = Date.parse('2026-11-21T00:00:00.000Z');
    now = new Date(base + 5);
    for (let i = 0; i < 10; i++) assert.equal((await incr()).current, i + 1);
    now = new Date(base);
    assert.equal((await incr()).current, 11, 'the 11th was admitted');
    assert.equal(
      Number(
        (
          await t.db
            .selectFrom('rate_limit_hits')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('key', '=', 'out-of-order')
            .executeTakeFirstOrThrow()
        ).n,
      ),
      10,
    );
  });
});

// Real concurrency needs a server's many connections; embedded PGlite runs one statement at a
// time, so a few rounds there show the same thing.
const rounds = serverUrl ? 20 : 5;

describe('sliding window, concurrency', () => {
  test(`on the database's own clock, 3x the limit at once admits exactly the limit, ${rounds} times over (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const limit = loadConfig({}).limits.posts;
    // No injected clock: production's configuration, where time comes from the database.
    const app = await buildApp({
      config: testConfig({
        logLevel: 'silent',
        limits: t.config.limits,
        ipLimitFactor: t.config.ipLimitFactor,
      }),
      db: t.db,
    });
    try {
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      for (let round = 0; round < rounds; round++) {
        const { bot, api_key } = await registerBot(t.app);
        const statuses = await fireTogether([base], api_key, 3 * limit);
        assert.equal(
          statuses.filter((s) => s === 201).length,
          limit,
          `round ${round}: ${statuses.join(',')}`,
        );
        const stored = await t.db.selectFrom('posts').select('id').where('bot_id', '=', bot.id).execute();
        assert.equal(stored.length, limit);
      }
    } finally {
      await app.close();
    }
  });

  test(`a bot firing 3x its limit at once gets exactly the limit, ${rounds} times over (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const limit = loadConfig({}).limits.posts;
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    for (let round = 0; round < rounds; round++) {
      const { bot, api_key } = await registerBot(t.app);
      const statuses = await fireTogether([base], api_key, 3 * limit);
      assert.equal(statuses.filter((s) => s === 201).length, limit, `round ${round}: ${statuses.join(',')}`);
      assert.equal(statuses.filter((s) => s === 429).length, 2 * limit, `round ${round}`);
      const stored = await t.db.selectFrom('posts').select('id').where('bot_id', '=', bot.id).execute();
      assert.equal(stored.length, limit);
      // The key's window counts what its log holds.
      const window = await t.db
        .selectFrom('rate_limit_windows')
        .select('hits')
        .where('key', '=', `posts:${bot.id}`)
        .executeTakeFirstOrThrow();
      const logged = await t.db
        .selectFrom('rate_limit_hits')
        .select('at')
        .where('key', '=', `posts:${bot.id}`)
        .execute();
      assert.deepEqual([window.hits, logged.length], [limit, limit], `round ${round}`);
    }
  });

  test(`two server instances on one database admit exactly the limit in total (${serverUrl ? 'Postgres, separate pools' : 'PGlite, one embedded database'})`, async () => {
    const limit = loadConfig({}).limits.posts;
    // On Postgres the second instance has its own connection pool, as a second process would.
    const second = serverUrl
      ? await openDatabase({ databaseUrl: t.database.url, pgliteDir: 'memory://' })
      : undefined;
    const other = await buildApp({
      config: testConfig({
        logLevel: 'silent',
        limits: t.config.limits,
        ipLimitFactor: t.config.ipLimitFactor,
      }),
      db: second?.db ?? t.db,
      clock: () => now,
    });
    try {
      const urls = [
        t.app.server.listening
          ? `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
          : await t.app.listen({ host: '127.0.0.1', port: 0 }),
        await other.listen({ host: '127.0.0.1', port: 0 }),
      ];
      for (let round = 0; round < 5; round++) {
        const { bot, api_key } = await registerBot(t.app);
        const statuses = await fireTogether(urls, api_key, 3 * limit);
        assert.equal(
          statuses.filter((s) => s === 201).length,
          limit,
          `round ${round}: ${statuses.join(',')}`,
        );
        const stored = await t.db.selectFrom('posts').select('id').where('bot_id', '=', bot.id).execute();
        assert.equal(stored.length, limit);
      }
    } finally {
      await other.close();
      await second?.close();
    }
  });
});
