// The benchmarks' seeding bypasses triggers and foreign-key checks for speed; this proves that what
// it leaves behind is what the API would have: counters equal their rows, and every analytics figure
// equals a direct count.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { seedPlatform } from '../../bench/seed.js';
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
});
