// The keys that sign bots' identity tokens, sealed, shared by instances, rotated.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table identity_signing_keys (
      kid text primary key,
      secret_fingerprint text not null,
      period_start timestamptz not null,
      signs_until timestamptz not null,
      published_until timestamptz not null,
      public_jwk jsonb not null,
      private_key_sealed text not null,
      created_at timestamptz not null default now(),
      unique (period_start, secret_fingerprint),
      check (signs_until > period_start and published_until >= signs_until)
    )`.execute(db);
  await sql`create index identity_signing_keys_published on identity_signing_keys (published_until)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table identity_signing_keys`.execute(db);
}
