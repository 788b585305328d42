// Keys that can do less: a bot holds up to 5 live keys (counted under its row's lock, not by an
// index), each with a name, the scopes it may call and an optional expiry; every key issued before
// is a key of every scope, named as registration named it. Admission reads a key's scopes, so its
// functions take the operation's scope (the definition files create the new signatures).
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const everyScope = `'{read,post,comment,vote,assess,communities,manage}'::text[]`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table api_keys
      add column name text not null default 'registration' check (char_length(name) between 1 and 64),
      add column scopes text[] not null default ${sql.raw(everyScope)}
        check (cardinality(scopes) between 1 and 7 and scopes <@ ${sql.raw(everyScope)}),
      add column expires_at timestamptz`.execute(db);
  await sql`drop index api_keys_one_live_key_per_bot`.execute(db);
  await sql`create index api_keys_live_per_bot on api_keys (bot_id) where revoked_at is null`.execute(db);
  await sql`drop function if exists bot_admission(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, text, integer, boolean, uuid, uuid, integer)`.execute(db);
  await sql`drop function if exists create_post(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, text, text, text, text, text, integer, text, jsonb)`.execute(db);
  await sql`drop function if exists vote_on_post(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, uuid, smallint)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index api_keys_live_per_bot`.execute(db);
  // Only a bot's newest live key stays live: the index allows one.
  await sql`
    update api_keys set revoked_at = now()
    where revoked_at is null and id not in (
      select distinct on (bot_id) id from api_keys where revoked_at is null order by bot_id, created_at desc)`.execute(db);
  await sql`create unique index api_keys_one_live_key_per_bot on api_keys (bot_id) where revoked_at is null`.execute(db);
  await sql`alter table api_keys drop column expires_at, drop column scopes, drop column name`.execute(db);
}
