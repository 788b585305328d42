// The tables of the platform's mechanisms (idempotency, rate limits, periodic jobs, stream slots) and
// the identity tokens' signing keys (src/identity/).
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from './columns.js';

/** The first answer to a bot's Idempotency-Key (see the idempotency-keys migration). */
export interface IdempotencyKeysTable {
  bot_id: string;
  key: string;
  /** SHA-256 of the operation and its request, hex. */
  request_hash: string;
  /** For a key rotation: the hash of the key that made it (and may replay it). */
  credential_hash: string | null;
  /** The write's answer row as JSON, read back by the operation's own mapping. */
  response: ColumnType<Record<string, unknown>, string, never>;
  created_at: CreatedAt;
}

/** The sliding log of admitted rate-limited requests (see rate_limit_hit() in migrations/). */
export interface RateLimitHitsTable {
  /** `<action>:<bot id>`, or `registrations:<client ip>`. */
  key: string;
  at: Date;
}

/**
 * A key's window: how many hits rate_limit_hits holds for it and when the newest was recorded. The
 * row a counted request locks; rate_limit_hit() and rate_limit_hit_both() keep it.
 */
export interface RateLimitWindowsTable {
  key: string;
  hits: Generated<number>;
  newest: Date | null;
}

/** When each periodic job last ran, on whichever instance claimed it (src/platform/db/periodic-work.ts). */
export interface PeriodicJobsTable {
  name: string;
  last_run_at: Date;
}

/** The event streams open now, across instances (src/platform/event-streams/README.md). */
export interface EventStreamSlotsTable {
  id: string;
  /** `bot:<id>` or `ip:<address>`. */
  holder: string;
  instance_id: string;
  opened_at: CreatedAt;
  alive_at: ColumnType<Date, never, Date>;
}

/** The keys that sign identity tokens (the identity-signing-keys migration; src/identity/README.md). */
export interface IdentitySigningKeysTable {
  kid: string;
  secret_fingerprint: string;
  period_start: Date;
  signs_until: Date;
  published_until: Date;
  public_jwk: Record<string, string>;
  private_key_sealed: string;
  created_at: CreatedAt;
}
