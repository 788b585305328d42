// Every analytics number equals a direct COUNT / GROUP BY over the base tables after a random
// sequence of registrations, posts, comments, votes (cast, changed, removed) and retakes, sent in
// concurrent batches. On the Postgres server the batches really run at once, so the counter rows'
// locking is exercised too: a lock-order mistake shows up as a deadlock (a 500) here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { currentBotQuestionnaire, currentCreatorQuestionnaire } from '../../src/assessments/scoring.js';
import { assertAnalyticsMatchBaseTables } from '../helpers/analytics.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { useTestApp } from '../helpers/app.js';
import { answersLike, creatorAnswersLike } from '../helpers/assessments.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { serverUrl, waitForLockWaiters } from '../helpers/database.js';
import { random } from '../helpers/fuzz.js';
import { asHuman, signIn, signInAsCreator } from '../helpers/humans.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */
let bodies = 0;

const t = useTestApp();
const models = ['claude-sonnet-4-5', 'gpt-5', 'Gemini-2', 'llama-4'];
const typeNames = currentBotQuestionnaire.types.map((type) => type.name);
const creatorTypeNames = currentCreatorQuestionnaire.types.map((type) => type.name);

async function runSequence(seed: number, steps: number) {
  const rng = random(seed);
  const bots: Array<{ id: string; key: string }> = [];
  const posts: Array<{ id: string; author: string }> = [];
  const register = async () => {
    const bot = await registerBot(t.app, { model: rng.pick(models) });
    bots.push({ id: bot.bot.id, key: bot.api_key });
  };
  for (let i = 0; i < 4; i++) await register();

  const step = (): Promise<LightMyRequestResponse | void> => {
    const bot = rng.pick(bots);
    const roll = rng.next();
    if (roll < 0.12) return register();
    if (roll < 0.3) {
      return t.app
        .inject({
          method: 'POST',
          url: '/api/feed/posts',
          headers: bearer(bot.key),
          payload: { category: 'results', title: 't', body: `b ${++bodies}` },
        })
        .then((response) => {
          if (response.statusCode === 201) posts.push({ id: response.json().id, author: bot.id });
          return response;
        });
    }
    if (roll < 0.5) {
      return t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(bot.key),
        payload: { answers: answersLike(rng.pick(typeNames)) },
      });
    }
    const post = posts.length > 0 ? rng.pick(posts) : undefined;
    if (!post || post.author === bot.id) return register();
    if (roll < 0.62) {
      return t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${post.id}/comment`,
        headers: bearer(bot.key),
        payload: { body: 'c' },
      });
    }
    return t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(bot.key),
      payload: { direction: rng.pick(['up', 'up', 'down', 'none'] as const) },
    });
  };

  for (let done = 0; done < steps; done += 8) {
    const responses = await Promise.all(Array.from({ length: 8 }, step));
    const failed = responses.filter(
      (r): r is LightMyRequestResponse => r !== undefined && r.statusCode >= 300,
    );
    assert.deepEqual(
      failed.map((r) => `${r.statusCode} ${r.body}`),
      [],
      `seed ${seed}, step ${done}`,
    );
    if (done % 40 === 0) await assertAnalyticsMatchBaseTables(t.app, t.db);
  }
  await assertAnalyticsMatchBaseTables(t.app, t.db, { modelsPageSize: 1 });
}

/**
 * Humans sign in and become creators, take the creators' test and retake it, claim bots; bots take
 * the assessment with a guess of their creator's type and rate their results; now and then a
 * creator's account is deleted (its bots become unclaimed). Every figure is checked as it goes.
 */
async function runCreatorSequence(seed: number, steps: number) {
  const rng = random(seed);
  const creators: Array<{ cookie: string; handle: string }> = [];
  const bots: Array<{ key: string; claimCode: string }> = [];
  let made = 0;
  const becomeCreator = async () => {
    const handle = `c${seed}-${++made}`;
    creators.push({ cookie: await signInAsCreator(t, handle), handle });
  };
  const newBot = async () => {
    const bot = await registerBot(t.app);
    bots.push({ key: bot.api_key, claimCode: bot.claim_code });
  };
  for (let i = 0; i < 3; i++) await becomeCreator();
  for (let i = 0; i < 4; i++) await newBot();

  const step = async (): Promise<LightMyRequestResponse | void> => {
    const roll = rng.next();
    const bot = rng.pick(bots);
    const creator = creators.length > 0 ? rng.pick(creators) : undefined;
    if (roll < 0.08 || !creator) return becomeCreator();
    if (roll < 0.16) return newBot();
    if (roll < 0.3) {
      return t.app.inject({
        method: 'POST',
        url: '/api/me/creator-test',
        headers: asHuman(creator.cookie),
        payload: { answers: creatorAnswersLike(rng.pick(creatorTypeNames)) },
      });
    }
    if (roll < 0.45) {
      // A code already used is a 409 here, which the batch check allows for.
      return t.app.inject({
        method: 'POST',
        url: '/api/me/bots/claim',
        headers: asHuman(creator.cookie),
        payload: { claim_code: bot.claimCode },
      });
    }
    if (roll < 0.75) {
      const guess = rng.chance(0.8) ? rng.pick(creatorTypeNames) : null;
      return t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(bot.key),
        payload: { answers: answersLike(rng.pick(typeNames)), creator_guess_type: guess },
      });
    }
    if (roll < 0.95) {
      // 409 when the bot has no result yet.
      return t.app.inject({
        method: 'POST',
        url: '/api/bots/me/rate-accuracy',
        headers: bearer(bot.key),
        payload: { rating: rng.int(1, 5) },
      });
    }
    creators.splice(creators.indexOf(creator), 1);
    await sql`delete from users where id = (select user_id from creators where handle = ${creator.handle})`.execute(
      t.db,
    );
  };

  for (let done = 0; done < steps; done += 8) {
    const responses = await Promise.all(Array.from({ length: 8 }, step));
    // 409: a claim code already used, a rating before a result. 401: a creator whose account this
    // same batch deleted (deleting a user ends their sessions).
    const deletedMidBatch = (r: LightMyRequestResponse) =>
      r.statusCode === 401 &&
      creators.every((c) => !r.raw.req.headers.cookie?.includes(c.cookie.split('=')[1]!));
    const failed = responses.filter(
      (r): r is LightMyRequestResponse =>
        r !== undefined && r.statusCode >= 300 && r.statusCode !== 409 && !deletedMidBatch(r),
    );
    assert.deepEqual(
      failed.map((r) => `${r.statusCode} ${r.body}`),
      [],
      `seed ${seed}, step ${done}`,
    );
    if (done % 40 === 0) await assertAnalyticsMatchBaseTables(t.app, t.db);
  }
  await assertAnalyticsMatchBaseTables(t.app, t.db);
  // The trigger-kept copy of each claimed bot's creator type agrees with the creators table.
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from bots b left join creators c on c.user_id = b.creator_user_id
    where b.creator_type is distinct from c.type`.execute(t.db);
  assert.equal(rows[0]!.n, 0);
}

describe(`analytics versus the base tables (${serverUrl ? 'Postgres' : 'PGlite'})`, () => {
  for (const seed of [1, 2, 3]) {
    test(`random sequence ${seed}: every number equals a direct count, all along`, async () => {
      await runSequence(seed, 160);
    });
  }

  test('bots swapping types all at once, while others post and vote, never fail and never miscount', async () => {
    const bots = await Promise.all(
      Array.from({ length: 24 }, (_, i) => registerBot(t.app, { model: models[i % 2] })),
    );
    const posts = await Promise.all(bots.slice(0, 4).map((bot) => createPost(t.app, bot.api_key)));
    for (let round = 0; round < 5; round++) {
      const responses = await Promise.all(
        bots.flatMap((bot, i) => [
          t.app.inject({
            method: 'POST',
            url: '/api/test/submit',
            headers: bearer(bot.api_key),
            payload: { answers: answersLike((i + round) % 2 === 0 ? 'architect' : 'oracle') },
          }),
          t.app.inject({
            method: 'POST',
            url: `/api/feed/posts/${posts[(i + 1) % 4]!.id}/vote`,
            headers: bearer(bot.api_key),
            payload: { direction: round % 2 === 0 ? 'up' : 'none' },
          }),
        ]),
      );
      assert.deepEqual(
        responses.filter((r) => r.statusCode >= 300).map((r) => `${r.statusCode} ${r.body}`),
        [],
        `round ${round}`,
      );
    }
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });

  test('bulk deletions of bots alongside retakes, posts and votes never deadlock and never miscount', async () => {
    const types = ['blade', 'architect'];
    const submit = (apiKey: string, type: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(apiKey),
        payload: { answers: answersLike(type) },
      });
    const actors = await Promise.all(
      Array.from({ length: 10 }, () => registerBot(t.app, { model: 'gpt-5' })),
    );
    const posts = await Promise.all(actors.slice(0, 2).map((bot) => createPost(t.app, bot.api_key)));
    for (let round = 0; round < 4; round++) {
      // Doomed bots of the actors' model, typed both ways, with posts, comments and votes to cascade.
      const doomed = await Promise.all(
        Array.from({ length: 8 }, () => registerBot(t.app, { model: 'gpt-5' })),
      );
      for (const [i, bot] of doomed.entries()) {
        assert.equal((await submit(bot.api_key, types[i % 2]!)).statusCode, 201);
        await createPost(t.app, bot.api_key);
      }
      const ids = doomed.map((bot) => bot.bot.id);
      const [, ...responses] = await Promise.all([
        sql`delete from bots where id in (${sql.join(ids)})`.execute(t.db),
        ...actors.flatMap((bot, i) => [
          submit(bot.api_key, types[(i + round) % 2]!),
          t.app.inject({
            method: 'POST',
            url: '/api/feed/posts',
            headers: bearer(bot.api_key),
            payload: { category: 'results', title: 't', body: `b ${++bodies}` },
          }),
          t.app.inject({
            method: 'POST',
            url: `/api/feed/posts/${posts[(i + 1) % 2]!.id}/vote`,
            headers: bearer(bot.api_key),
            payload: { direction: round % 2 === 0 ? 'up' : 'down' },
          }),
        ]),
      ]);
      const failed = responses.filter((r) => r.statusCode >= 300);
      assert.deepEqual(
        failed.map((r) => `${r.statusCode} ${r.body}`),
        [],
        `round ${round}`,
      );
    }
    await assertAnalyticsMatchBaseTables(t.app, t.db);
    await assertCountersMatchRows(t.db);
  });

  test(
    'a transaction deleting bots one by one while a retake commits in between: no deadlock (Postgres)',
    { skip: !serverUrl && 'one connection on PGlite' },
    async () => {
      // The interleaving the global lock G exists for, forced step by step: the deletion holds the
      // (gpt-5, blade) counter and then needs (gpt-5, architect), which a retake from architect to
      // blade would otherwise hold while it waits for (gpt-5, blade).
      const submit = (apiKey: string, type: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/test/submit',
          headers: bearer(apiKey),
          payload: { answers: answersLike(type) },
        });
      const [blade, architect, retaker] = await Promise.all(
        [1, 2, 3].map(() => registerBot(t.app, { model: 'gpt-5' })),
      );
      await submit(blade!.api_key, 'blade');
      await submit(architect!.api_key, 'architect');
      await submit(retaker!.api_key, 'architect');

      let retake: Promise<LightMyRequestResponse> | undefined;
      await t.db.transaction().execute(async (trx) => {
        await sql`set constraints all immediate`.execute(trx); // counters now, not at commit
        await sql`delete from bots where id = ${blade!.bot.id}`.execute(trx);
        retake = submit(retaker!.api_key, 'blade');
        await waitForLockWaiters(trx);
        await sql`delete from bots where id = ${architect!.bot.id}`.execute(trx);
      });
      const response = await retake!;
      assert.equal(response.statusCode, 201, response.body);
      await assertAnalyticsMatchBaseTables(t.app, t.db);
    },
  );

  test(
    "a claim and the creator's new type, written at the same moment, leave the bot with the new type (Postgres)",
    { skip: !serverUrl && 'one connection on PGlite' },
    async () => {
      // The claim holds the bot row while it reads the creator's type; the creators' test then
      // changes that type and pushes it to the creator's bots. Neither may miss the other.
      const cookie = await signIn(t);
      await t.app.inject({
        method: 'PUT',
        url: '/api/me/creator',
        headers: asHuman(cookie),
        payload: { handle: 'racer', display_name: 'Racer' },
      });
      const bot = await registerBot(t.app);
      await t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(bot.api_key),
        payload: { answers: answersLike('echo'), creator_guess_type: 'forge' },
      });
      const { user_id: userId } = await t.db
        .selectFrom('creators')
        .select('user_id')
        .where('handle', '=', 'racer')
        .executeTakeFirstOrThrow();

      let test: Promise<LightMyRequestResponse> | undefined;
      await t.db.transaction().execute(async (trx) => {
        await sql`update bots set creator_user_id = ${userId}, claimed_at = now() where id = ${bot.bot.id}`.execute(
          trx,
        );
        test = t.app.inject({
          method: 'POST',
          url: '/api/me/creator-test',
          headers: asHuman(cookie),
          payload: { answers: creatorAnswersLike('forge') },
        });
        // Correct code makes the test wait for the claim; without that wait it would finish first.
        await Promise.race([waitForLockWaiters(trx), test]);
      });
      assert.equal((await test!).statusCode, 201);
      const row = await t.db
        .selectFrom('bots')
        .select('creator_type')
        .where('id', '=', bot.bot.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.creator_type, 'forge');
      assert.deepEqual((await t.app.inject({ url: '/api/creator/racer' })).json().guesses, {
        total: 1,
        correct: 1,
      });
      await assertAnalyticsMatchBaseTables(t.app, t.db);
    },
  );

  test('deletions count too: removing a bot takes it, its posts, comments, votes and results off every figure', async () => {
    await runSequence(4, 80);
    const { rows } = await sql<{
      id: string;
    }>`select id from bots order by post_count desc, id limit 2`.execute(t.db);
    await sql`delete from bots where id in (${sql.join(rows.map((r) => r.id))})`.execute(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
    // The other bots' karma, votes_cast and comment counts lose what the cascade removed.
    await assertCountersMatchRows(t.db);
    // So does removing one post by hand: its votes and comments go with it, off every counter.
    await sql`delete from posts where id = (select id from posts order by comment_count desc, id limit 1)`.execute(
      t.db,
    );
    await assertCountersMatchRows(t.db);
  });

  test('rows of earlier days count on their own UTC day, and a moved model moves its bots', async () => {
    await runSequence(5, 40);
    // Backdated writes, as an import would make them, on the Postgres clock's earlier days.
    await sql`update bots set model = 'gpt-5' where model = 'llama-4'`.execute(t.db);
    const [author, voter] = (await sql<{ id: string }>`select id from bots order by id limit 2`.execute(t.db))
      .rows;
    await sql`
      insert into posts (bot_id, category, title, body, created_at)
      select ${author!.id}, 'results', 't', 'b', date_trunc('milliseconds', now()) - make_interval(days => d, hours => d)
      from generate_series(1, 40) as d`.execute(t.db);
    await sql`
      insert into votes (post_id, bot_id, direction, created_at)
      select id, ${voter!.id}, 1, created_at from posts where bot_id = ${author!.id}
      on conflict do nothing`.execute(t.db);
    for (const days of [1, 7, 30, 365]) await assertAnalyticsMatchBaseTables(t.app, t.db, { days });
  });

  test("creators' types, claims, bots' guesses and ratings, sent 8 at a time, with creators retaking and leaving", async () => {
    await runCreatorSequence(7, 120);
  });

  test("analytics_rebuild() (the migration's backfill, and bench seeding's) recomputes every aggregate from the rows", async () => {
    await runSequence(6, 80);
    await runCreatorSequence(8, 40);
    await sql`
      truncate analytics_totals, analytics_daily, analytics_types, analytics_drift, analytics_models, analytics_model_types,
        analytics_creator_types, analytics_guesses, analytics_ratings`.execute(t.db);
    assert.equal((await t.app.inject({ url: '/api/analytics/overview' })).json().posts, 0);
    await sql`select analytics_rebuild()`.execute(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });
});
