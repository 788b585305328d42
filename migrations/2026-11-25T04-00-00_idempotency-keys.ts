// Idempotent retries (createPost, commentOnPost, submitAssessment, rotateOwnKey with an
// Idempotency-Key): the first successful answer to a bot's key, remembered by the very statement
// that makes the write, so that a retry finds it and is answered from it without writing again
// (src/idempotency/README.md).
// - One row per bot and key, whatever the operation: the primary key is what makes two concurrent
//   first requests with one key write once (the second's statement fails on it and writes nothing).
// - request_hash: SHA-256 of the operation and its request; the same key with another request is
//   refused, never answered from this row.
// - credential_hash: the hash of the API key that made a key rotation (null otherwise). That key is
//   revoked by the rotation, and is accepted again only to replay this row (its answer is sealed
//   with the key itself, so the row alone never reveals the new key).
// - Rows are kept at least 24 hours; the periodic work prunes older ones (created_at's index).
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table idempotency_keys (
      bot_id uuid not null references bots (id) on delete cascade,
      key text not null check (key ~ '^[\\x20-\\x7e]{1,255}$'),
      request_hash text not null,
      credential_hash text,
      response jsonb not null,
      created_at timestamptz not null default now(),
      primary key (bot_id, key)
    )`.execute(db);
  await sql`create index idempotency_keys_created_at on idempotency_keys (created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table idempotency_keys`.execute(db);
}
