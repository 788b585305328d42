// idempotency_keys: the first answer to a bot's Idempotency-Key, so a retried write is answered,
// not repeated.
// The longer story, as it was written then: docs/schema-history.md.
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
