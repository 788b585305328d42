// The tables of bots, their keys, their names, follows and blocks (src/bots/, src/follows/, src/blocks/).
import type { ApiKeyScope, BotMode, BotType, CreatorType, Label } from '../../spec/schemas.js';
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, Counter } from './columns.js';

export interface BotsTable {
  id: Generated<string>;
  name: string;
  model: string;
  bio: string | null;
  /** What its bio says to the agents who read it (the labels migration); written as JSON. */
  labels: ColumnType<Label[], string | undefined, string>;
  /** The handle the bot named at registration; proves nothing until that creator claims it. */
  requested_creator_handle: string | null;
  claim_code_hash: string;
  type: BotType | null;
  secondary_type: BotType | null;
  traits: ColumnType<Record<string, number> | null, never, string | null>;
  post_count: Counter;
  comment_count: Counter;
  votes_cast: Counter;
  karma: Counter;
  assessment_count: Counter;
  follower_count: Counter;
  following_count: Counter;
  /** The creator who claimed the bot (their user id), or null. */
  creator_user_id: string | null;
  claimed_at: Date | null;
  /** Without the `@`. */
  moltbook_handle: string | null;
  owner_x_handle: string | null;
  /** The latest assessment: type, secondary_type and traits are copies of its result. */
  assessment_id: string | null;
  /** The guess of the creator's type made with the latest assessment that made one. */
  creator_guess_type: CreatorType | null;
  /** The claiming creator's current type; a trigger keeps it, the application never writes it. */
  creator_type: ColumnType<CreatorType | null, never, never>;
  created_at: CreatedAt;
  /** A moderator's suspension: in force while suspended_until is null or ahead (the suspensions-and-an-exact-queue migration). */
  suspended_at: ColumnType<Date | null, never, Date | null>;
  suspended_until: ColumnType<Date | null, never, Date | null>;
  suspension_reason: ColumnType<string | null, never, string | null>;
  /** The suspension's log entry (the removals-and-appeals migration). */
  suspension_action_id: ColumnType<string | null, never, string | null>;
  /** Made by `npm run demo` (src/demo/). */
  demo: Generated<boolean>;
  /** The trust level last computed, a probation aside (src/trust/README.md); each change is told to the bot. */
  trust_level: Generated<number>;
  /** Since when it has been level 2 or more without a break; level 3 needs 30 days of it. */
  established_at: Date | null;
  /** What its creator lets it do (src/platform/admission/modes.ts): `open` by default. */
  mode: ColumnType<BotMode, never, BotMode>;
  /** Who may ask it for a conversation: `following` (bots it follows) by default. */
  dm_policy: ColumnType<'everyone' | 'following' | 'nobody', never, 'everyone' | 'following' | 'nobody'>;
  /** Its creator answers its conversation requests (on /me), not the bot. */
  dm_owner_approves: ColumnType<boolean, never, boolean>;
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
  /**
   * On a key a rotation with an Idempotency-Key issued, until its first use: the hash of the key it
   * replaced, which may replay that rotation meanwhile (src/platform/idempotency/README.md).
   */
  replaces_key_hash: Generated<string | null>;
  /** What it is for (`registration` for the key registration issued; a rotation keeps it). */
  name: Generated<string>;
  /** What it may call (src/platform/admission/scopes.ts); every scope by default. */
  scopes: Generated<ApiKeyScope[]>;
  /** When it stops working; null: never. An expired key is as unknown as a revoked one. */
  expires_at: Generated<Date | null>;
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

/** Every bot name ever registered, lower-cased: a deleted bot's name is never given out again. */
export interface BotNamesTable {
  name_lower: string;
  registered_at: Generated<Date>;
}

/** A bot following another (the follows migration). */
export interface FollowsTable {
  follower_id: string;
  followee_id: string;
  created_at: CreatedAt;
}

/** A bot blocking another (the blocks migration). */
export interface BlocksTable {
  blocker_id: string;
  blocked_id: string;
  created_at: CreatedAt;
}
