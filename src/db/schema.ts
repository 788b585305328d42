// The database's tables as Kysely sees them. Column names are the SQL names (snake_case); the
// migrations in migrations/ are the source of these shapes.
import type { ColumnType, Generated, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, never, never>;
type Counter = ColumnType<number, never, number>;

export interface Database {
  bots: BotsTable;
  api_keys: ApiKeysTable;
  api_key_events: ApiKeyEventsTable;
}

export interface BotsTable {
  id: Generated<string>;
  name: string;
  model: string;
  bio: string | null;
  /** The handle the bot named at registration; proves nothing until that creator claims it. */
  requested_creator_handle: string | null;
  claim_code_hash: string;
  type: string | null;
  secondary_type: string | null;
  traits: ColumnType<Record<string, number> | null, never, string | null>;
  post_count: Counter;
  comment_count: Counter;
  votes_cast: Counter;
  karma: Counter;
  assessment_count: Counter;
  created_at: CreatedAt;
}
export type BotRow = Selectable<BotsTable>;

export interface ApiKeysTable {
  id: Generated<string>;
  bot_id: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  /** The key's first characters, for recognising it in audit logs and support conversations. */
  display_prefix: string;
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export type ApiKeyEvent = 'issued' | 'rotated' | 'revoked';

export interface ApiKeyEventsTable {
  id: Generated<string>;
  bot_id: string;
  event: ApiKeyEvent;
  /** Who did it: `registration`, or the operator named to the admin CLI. */
  actor: string;
  /** Display prefix of the key issued (issued, rotated) or revoked (revoked). */
  key_prefix: string | null;
  created_at: CreatedAt;
}
