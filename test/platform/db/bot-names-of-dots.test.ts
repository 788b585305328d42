// Names made only of dots were accepted until 2026-11-25; a browser resolves /bot/.. to /, so such
// a bot had no page. The migration that forbids them renames the bots that have one, the same way
// on every database: `renamed-` and the first 8 hex digits of the bot's id, more digits when taken.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { up } from '../../../migrations/2026-11-25T00-00-00_bot-names-not-only-dots.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

async function insertBot(name: string, id: string) {
  await sql`insert into bots (id, name, model, claim_code_hash) values (${id}, ${name}, 'gpt-5', ${`hash-${id}`})`.execute(
    database.db,
  );
}

describe('the migration forbidding names made only of dots', () => {
  test('renames existing bots deterministically, around names already taken, then refuses such names', async () => {
    const { db } = database;
    // As the database was before the migration.
    await sql`alter table bots drop constraint bots_name_not_only_dots`.execute(db);
    await insertBot('..', '1a2b3c4d-0000-4000-8000-000000000001');
    await insertBot('...', '5e6f7a8b-0000-4000-8000-000000000002');
    await insertBot('Renamed-5E6F7A8B', '99999999-0000-4000-8000-000000000003'); // takes the short name
    await insertBot('ada', 'aaaaaaaa-0000-4000-8000-000000000004');

    await up(db);

    const names = await db.selectFrom('bots').select(['id', 'name']).orderBy('id').execute();
    assert.deepEqual(
      names.map((row) => row.name),
      ['renamed-1a2b3c4d', 'renamed-5e6f7a8b0000', 'Renamed-5E6F7A8B', 'ada'],
    );
    await assert.rejects(sql`update bots set name = '.....' where name = 'ada'`.execute(db), /only_dots/);
  });
});
