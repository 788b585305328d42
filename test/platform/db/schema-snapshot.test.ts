// The committed schema snapshot (migrations/schema.sql) is what the migrations leave, on PGlite and
// on the Postgres server alike; it reads the catalog, so any change to the schema shows in it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { schemaSnapshot } from '../../../src/platform/db/schema-snapshot.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

let database: TestDatabase;
before(async () => (database = await createTestDatabase()));
after(() => database?.close());

class Rollback extends Error {}

test('migrations/schema.sql is the migrated database, table by table (`npm run schema` remakes it)', async () => {
  const committed = await readFile(new URL('../../../migrations/schema.sql', import.meta.url), 'utf8');
  assert.equal(await schemaSnapshot(database.db), committed);
});

test('a column, an index, a constraint or a trigger added shows in the snapshot, in its table', async () => {
  const before = await schemaSnapshot(database.db);
  await database.db
    .transaction()
    .execute(async (trx) => {
      await sql`alter table posts add column pinned boolean not null default false`.execute(trx);
      await sql`create index posts_pinned on posts (pinned)`.execute(trx);
      await sql`alter table posts add constraint posts_short_title check (char_length(title) < 1000)`.execute(
        trx,
      );
      await sql`create trigger pinned_post after insert on posts for each row execute function feed_event()`.execute(
        trx,
      );
      const after = await schemaSnapshot(trx);
      const posts = /CREATE TABLE posts \([^]*?\n\n/.exec(after)?.[0] ?? '';
      assert.match(posts, /\n {2}pinned boolean NOT NULL DEFAULT false,\n/);
      assert.match(posts, /\n {2}CONSTRAINT posts_short_title CHECK \(\(char_length\(title\) < 1000\)\)/);
      assert.match(posts, /\nCREATE INDEX posts_pinned ON public\.posts USING btree \(pinned\);\n/);
      assert.match(posts, /\nCREATE TRIGGER pinned_post AFTER INSERT ON public\.posts /);
      assert.notEqual(after, before);
      throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  assert.equal(await schemaSnapshot(database.db), before, 'and the same database, the same page');
});
