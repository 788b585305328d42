// The benchmarks' seeding bypasses triggers and foreign-key checks for speed; this proves that what
// it leaves behind is what the API would have: counters equal their rows, and every analytics figure
// equals a direct count, and still does after deletions of seeded rows (the triggers then take out
// what the seeding put in without them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { deleteBotForGood } from '../../src/bots/repository/bots.js';
import { deleteCommentBy, deletePostBy } from '../../src/feed/repository/deletions.js';
import { moderatorSession, seedModeration, seedPlatform } from '../../bench/seed.js';
import { assertAnalyticsMatchBaseTables } from '../helpers/analytics.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

describe('bench seeding', () => {
  test('seeds the requested sizes, with counters and analytics as the API would have left them', async () => {
    const seeded = await seedPlatform(database.db, { bots: 1_000, posts: 10_000 });
    assert.deepEqual(
      {
        bots: seeded.bots,
        typedBots: seeded.typedBots,
        posts: seeded.posts,
        comments: seeded.comments,
        votes: seeded.votes,
        assessments: seeded.assessments,
      },
      { bots: 1_000, typedBots: 600, posts: 10_000, comments: 2_000, votes: 50_000, assessments: 800 },
    );
    await assertCountersMatchRows(database.db);
    const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: database.db });
    try {
      for (const days of [30, 365])
        await assertAnalyticsMatchBaseTables(app, database.db, { days, modelsPageSize: 100 });
    } finally {
      await app.close();
    }
  });

  test('deletions of seeded rows (posts, comments with and without replies, whole bots) keep every count equal to a recount', async () => {
    const { db } = database;
    const comments = await db
      .selectFrom('comments')
      .select(['id', 'post_id', 'bot_id'])
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .limit(10)
      .execute();
    assert.equal(comments.length, 10, 'the previous test seeded the platform');
    const [replier] = await db.selectFrom('bots').select('id').orderBy('id', 'desc').limit(1).execute();
    // Half of them answered first, so that deleting them leaves tombstones.
    for (const parent of comments.slice(0, 5)) {
      await db
        .insertInto('comments')
        .values({ post_id: parent.post_id, bot_id: replier!.id, body: 'A reply', parent_id: parent.id })
        .execute();
    }
    for (const comment of comments)
      assert.equal(await deleteCommentBy(db, comment.bot_id!, comment.post_id, comment.id), 'deleted');
    const tombstones = await db
      .selectFrom('comments')
      .select('id')
      .where('deleted_at', 'is not', null)
      .execute();
    assert.equal(tombstones.length, 5);

    const posts = await db
      .selectFrom('posts')
      .select(['id', 'bot_id'])
      .orderBy('score', 'desc')
      .limit(20)
      .execute();
    for (const post of posts) assert.equal(await deletePostBy(db, post.bot_id, post.id), 'deleted');
    const busiest = await db.selectFrom('bots').select('id').orderBy('karma', 'desc').limit(5).execute();
    for (const bot of [...busiest, replier!]) await deleteBotForGood(db, bot.id);

    await assertCountersMatchRows(db);
    const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db });
    try {
      await assertAnalyticsMatchBaseTables(app, db, { days: 365, modelsPageSize: 100 });
    } finally {
      await app.close();
    }
  });

  test("moderation: removals by the platform's own function, open reports in the queue, a moderator's session that works", async () => {
    const { db } = database;
    const seeded = await seedModeration(db, { removedPosts: 10, reportedPosts: 50, reportsPerPost: 2 });
    assert.deepEqual(seeded, { removed: 10, reports: 100, reportedTargets: 50 });
    await assertCountersMatchRows(db);
    const config = testConfig({ logLevel: 'silent' });
    const app = await buildApp({ config, db });
    try {
      await assertAnalyticsMatchBaseTables(app, db, { days: 365, modelsPageSize: 100 });
      const cookie = await moderatorSession(db, config.humans.sessionSecrets[0]!);
      const queue = await app.inject({ url: '/api/moderation/reports?limit=100', headers: { cookie } });
      assert.equal(queue.statusCode, 200, queue.body);
      assert.equal(queue.json().items.length, 50);
    } finally {
      await app.close();
    }
  });
});
