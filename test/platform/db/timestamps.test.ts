// parseTimestamptz must read every timestamptz the database writes as the instant it is, in any
// session time zone, and leave what it does not read to pg's own parser (postgres-date). The texts
// come from the database itself (the output function, as a server sends them to the pool).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { parseTimestamptz, poolTypes } from '../../../src/platform/db/timestamps.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

const postgresDate = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number;

// Whole seconds, milliseconds and microseconds; before 1900 most zones had odd (LMT) offsets, some
// in seconds; 1000 and 9999 are the ends of what is read here.
const instants = [
  '1000-01-01 00:00:00+00',
  '1847-06-30 12:34:56.789+00',
  '1899-12-31 23:59:59.999999+00',
  '1969-12-31 23:59:59.5+00',
  '1970-01-01 00:00:00+00',
  '2000-02-29 08:00:00.001+00',
  '2026-11-24 02:21:13.123456+00',
  '2026-03-29 01:30:00.05+00',
  '9999-12-31 23:59:59.999+00',
];
const zones = [
  'UTC',
  'Asia/Kolkata',
  'America/St_Johns',
  'Europe/Amsterdam',
  'Pacific/Kiritimati',
  'America/Los_Angeles',
];
// What is left to postgres-date: infinities, years before 1000 or after 9999, BC.
const others = [
  'infinity',
  '-infinity',
  '0099-01-01 00:00:00+00',
  '10000-01-01 00:00:00+00',
  '0044-03-15 12:00:00+00 BC',
];

describe('timestamptz from a Postgres server', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.close();
  });

  test('is read as the instant it is, in every session time zone', async () => {
    let read = 0;
    await database.db.connection().execute(async (conn) => {
      for (const zone of zones) {
        await sql`select set_config('TimeZone', ${zone}, false)`.execute(conn);
        const { rows } = await sql<{ text: string; epoch_ms: string }>`
          select t::timestamptz::text as text, (extract(epoch from t::timestamptz) * 1000)::text as epoch_ms
          from unnest(${instants}::text[]) as t`.execute(conn);
        for (const { text, epoch_ms } of rows) {
          // A Date keeps whole milliseconds: the instant's, rounded down (as postgres-date).
          const expected = Math.floor(Number(epoch_ms));
          const parsed = parseTimestamptz(text);
          assert.ok(parsed instanceof Date, text);
          assert.equal(parsed.getTime(), expected, `${text} (${zone})`);
          assert.equal(parsed.getTime(), (postgresDate(text) as Date).getTime(), `${text} as postgres-date`);
          read++;
        }
      }
    });
    assert.equal(read, instants.length * zones.length);
  });

  test('what it does not read is postgres-date’s answer', async () => {
    const { rows } = await sql<{ text: string }>`
      select t::timestamptz::text as text from unnest(${others}::text[]) as t`.execute(database.db);
    assert.equal(rows.length, others.length);
    for (const { text } of rows) {
      const expected = postgresDate(text);
      const parsed = parseTimestamptz(text);
      assert.equal(typeof parsed, typeof expected, text);
      assert.equal(Number(parsed), Number(expected), text);
    }
    // And a text no server writes (another DateStyle) is not misread as one.
    for (const text of ['Tue Nov 24 02:21:13 2026 UTC', '2026-11-24T02:21:13Z', '2026-11-24 02:21:13']) {
      assert.equal(Number(parseTimestamptz(text)), Number(postgresDate(text)), text);
    }
  });

  test('the server pool reads timestamptz with it, and every other type as pg does', () => {
    assert.equal(poolTypes.getTypeParser(1184, 'text'), parseTimestamptz);
    assert.equal(poolTypes.getTypeParser(1184), parseTimestamptz);
    for (const oid of [16, 20, 23, 25, 701, 1114, 1185, 2950])
      assert.equal(poolTypes.getTypeParser(oid, 'text'), pg.types.getTypeParser(oid, 'text'), `oid ${oid}`);
  });
});
