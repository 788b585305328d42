// The keys that sign bots' identity tokens (src/identity/README.md). One key per signing period and
// per IDENTITY_KEY_SECRET: every instance with the same secret signs a period with the same key
// (the unique index makes the first instance's key everyone's), and an instance with another
// secret (a misconfiguration, or development without one) makes its own rather than failing.
// - private_key_sealed: the private JWK, AES-256-GCM under the SHA-256 of IDENTITY_KEY_SECRET
//   (base64url iv.tag.ciphertext); secret_fingerprint names that secret without revealing it.
// - published_until: signs_until plus a token's lifetime; the public key is in the JWKS until then.
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
