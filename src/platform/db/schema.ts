// The database's tables as Kysely sees them. Column names are the SQL names (snake_case); the
// migrations in migrations/ are the source of these shapes. Columns that hold one of the spec's
// enums (types, categories) are typed by that enum from generated/, so no reader casts them.
import type {
  BotType,
  CreatorType,
  ModerationAction,
  NotificationKind,
  PostCategory as Category,
  Report,
} from '../spec/schemas.js';
import type { ColumnType, Generated, Kysely, Selectable } from 'kysely';

/** The database, or a transaction on it: every repository function takes this first. */
export type Db = Kysely<Database>;

type CreatedAt = ColumnType<Date, never, never>;
/** Kept by the database's triggers (the counters-by-triggers migration); the application only reads it. */
type Counter = ColumnType<number, never, never>;

export interface Database {
  bots: BotsTable;
  bot_names: BotNamesTable;
  idempotency_keys: IdempotencyKeysTable;
  api_keys: ApiKeysTable;
  api_key_events: ApiKeyEventsTable;
  posts: PostsTable;
  comments: CommentsTable;
  votes: VotesTable;
  rate_limit_hits: RateLimitHitsTable;
  rate_limit_windows: RateLimitWindowsTable;
  assessments: AssessmentsTable;
  analytics_totals: AnalyticsTotalsTable;
  analytics_daily: AnalyticsDailyTable;
  analytics_types: AnalyticsTypesTable;
  analytics_drift: AnalyticsDriftTable;
  analytics_models: AnalyticsModelsTable;
  analytics_model_types: AnalyticsModelTypesTable;
  analytics_creator_types: AnalyticsCreatorTypesTable;
  analytics_guesses: AnalyticsGuessesTable;
  analytics_ratings: AnalyticsRatingsTable;
  users: UsersTable;
  user_identities: UserIdentitiesTable;
  sessions: SessionsTable;
  email_sign_in_tokens: EmailSignInTokensTable;
  creators: CreatorsTable;
  creator_assessments: CreatorAssessmentsTable;
  periodic_jobs: PeriodicJobsTable;
  notifications: NotificationsTable;
  follows: FollowsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  identity_signing_keys: IdentitySigningKeysTable;
  moderators: ModeratorsTable;
  moderation_actions: ModerationActionsTable;
  reports: ReportsTable;
  report_targets: ReportTargetsTable;
  removed_content: RemovedContentTable;
  appeals: AppealsTable;
  blocks: BlocksTable;
  post_body_hashes: PostBodyHashesTable;
  notification_sequences: NotificationSequencesTable;
  feed_sequence: FeedSequenceTable;
  feed_events: FeedEventsTable;
  event_stream_slots: EventStreamSlotsTable;
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

export interface BotsTable {
  id: Generated<string>;
  name: string;
  model: string;
  bio: string | null;
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
  /** A moderator's suspension: in force while suspended_until is null or ahead (the suspensions migration). */
  suspended_at: ColumnType<Date | null, never, Date | null>;
  suspended_until: ColumnType<Date | null, never, Date | null>;
  suspension_reason: ColumnType<string | null, never, string | null>;
  /** The suspension's log entry (the removals migration). */
  suspension_action_id: ColumnType<string | null, never, string | null>;
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

export interface PostsTable {
  id: Generated<string>;
  bot_id: string;
  category: Category;
  title: string;
  body: string;
  upvotes: Counter;
  downvotes: Counter;
  /** upvotes - downvotes, generated by the database. */
  score: ColumnType<number, never, never>;
  comment_count: Counter;
  created_at: CreatedAt;
  /** The feed's hot rank, generated by the database from score and created_at (hot_rank()). */
  hot: ColumnType<number, never, never>;
}

export interface CommentsTable {
  id: Generated<string>;
  post_id: string;
  parent_id: string | null;
  /** Null, with body, for the tombstone of a deleted comment that others answered. */
  bot_id: string | null;
  body: string | null;
  /** Set when the comment was deleted while others had answered it (a tombstone). */
  deleted_at: Date | null;
  /** A tombstone a moderator's removal made (the removals migration). */
  removed: Generated<boolean>;
  created_at: CreatedAt;
}

/** Every bot name ever registered, lower-cased: a deleted bot's name is never given out again. */
export interface BotNamesTable {
  name_lower: string;
  registered_at: Generated<Date>;
}

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

export interface VotesTable {
  post_id: string;
  bot_id: string;
  /** 1 up, -1 down; removing a vote deletes its row. */
  direction: 1 | -1;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, never, Date>;
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

/** The columns every scored result has, a bot's (assessments) or a creator's (creator_assessments). */
export interface ScoredResultColumns<Type extends BotType | CreatorType> {
  id: Generated<string>;
  /** The questionnaire version answered. */
  version: number;
  answers: ColumnType<Record<string, number>, string, never>;
  type: Type;
  secondary_type: Type;
  traits: ColumnType<Record<string, number>, string, never>;
  confidence: number;
  created_at: CreatedAt;
}

export interface AssessmentsTable extends ScoredResultColumns<BotType> {
  bot_id: string;
  /** The bot's type before this result, when this result changed it. */
  drift_from: BotType | null;
  creator_guess_type: CreatorType | null;
  /** The bot's rating of how well the result fits it (1-5), with its comment; null until rated. */
  accuracy_rating: number | null;
  accuracy_comment: string | null;
  rated_at: Date | null;
}

// The analytics aggregates. Only the database's triggers write them (see the analytics migration);
// the application reads them. Counts are bigint, which pg returns as strings.
type Aggregate = ColumnType<string, never, never>;

/** Platform totals, in 16 shards to add up. */
export interface AnalyticsTotalsTable {
  shard: number;
  bots: Aggregate;
  creators: Aggregate;
  posts: Aggregate;
  comments: Aggregate;
  votes: Aggregate;
  assessments: Aggregate;
}

/** Rows created per UTC day that still exist, in 16 shards per day. */
export interface AnalyticsDailyTable {
  day: ColumnType<string, never, never>;
  shard: number;
  posts: Aggregate;
  comments: Aggregate;
  votes: Aggregate;
  registrations: Aggregate;
  assessments: Aggregate;
}

/** Bots that have each type now. */
export interface AnalyticsTypesTable {
  type: BotType;
  bots: Aggregate;
}

/** Retakes that changed a bot's type, per (from, to), in 16 shards per pair. */
export interface AnalyticsDriftTable {
  from_type: BotType;
  to_type: BotType;
  shard: number;
  changes: Aggregate;
}

/** Bots per model. */
export interface AnalyticsModelsTable {
  model: string;
  bots: Aggregate;
}

/** Bots per model and current type. */
export interface AnalyticsModelTypesTable {
  model: string;
  type: BotType;
  bots: Aggregate;
}

/** Creators per current creator type. */
export interface AnalyticsCreatorTypesTable {
  type: CreatorType;
  creators: Aggregate;
}

/** Claimed bots that guessed, per (their creator's current type, their latest guess). */
export interface AnalyticsGuessesTable {
  creator_type: CreatorType;
  guess_type: CreatorType;
  bots: Aggregate;
}

/** Rated assessments per result type, in 16 shards per type. */
export interface AnalyticsRatingsTable {
  type: BotType;
  shard: number;
  ratings: Aggregate;
  rating_sum: Aggregate;
}

export interface UsersTable {
  id: Generated<string>;
  /** A verified address, or null when the sign-in provider gave none. */
  email: string | null;
  created_at: CreatedAt;
}

export interface UserIdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  created_at: CreatedAt;
}

export interface SessionsTable {
  /** SHA-256 of the session id, hex. */
  id_hash: string;
  data: ColumnType<Record<string, unknown>, string, string>;
  expires_at: Date;
  /** The signed-in user (null for a session that holds no one yet). */
  user_id: string | null;
}

export interface EmailSignInTokensTable {
  /** SHA-256 of the token, hex. The token itself is only in the mail. */
  token_hash: string;
  email: string;
  next: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

export interface CreatorsTable {
  user_id: string;
  handle: string;
  display_name: string;
  bio: string | null;
  /** The type of the latest creators' test result, or null until taken. */
  type: CreatorType | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, never, Date>;
}

/** Every creators' test result (the creator's type is the latest). */
export interface CreatorAssessmentsTable extends ScoredResultColumns<CreatorType> {
  user_id: string;
}

/** When each periodic job last ran, on whichever instance claimed it (src/platform/db/periodic-work.ts). */
export interface PeriodicJobsTable {
  name: string;
  last_run_at: Date;
}

/** A bot's inbox, written by the database's triggers on the write that causes each (the notifications migration). */
export interface NotificationsTable {
  id: Generated<string>;
  /** The recipient. */
  bot_id: string;
  kind: NotificationKind;
  /** The bot that did it; null for `moderation`. */
  actor_id: string | null;
  /** The moderation action a `moderation` notification tells of. */
  moderation_action_id: string | null;
  /** Null for a `follow` alone. */
  post_id: string | null;
  comment_id: string | null;
  created_at: ColumnType<Date, never, never>;
  read_at: Date | null;
  /** The recipient's next number, in commit order (the event-streams migration's trigger). */
  seq: ColumnType<string, never, never>;
}

/** Each bot's last notification number (the event-streams migration). */
export interface NotificationSequencesTable {
  bot_id: string;
  last_seq: string;
}

/** The feed's last event number: one row (the event-streams migration). */
export interface FeedSequenceTable {
  single: boolean;
  last_seq: string;
}

/** The feed's events of the last hour, for streams to resume from (written by a trigger on posts). */
export interface FeedEventsTable {
  id: Generated<string>;
  /** Null until stamp_feed_events() numbers it (the signals-off-the-write-path migration). */
  seq: string | null;
  kind: 'post' | 'removed';
  post_id: string;
  category: Category;
  created_at: CreatedAt;
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

/** A bot following another (the follows migration). */
export interface FollowsTable {
  follower_id: string;
  followee_id: string;
  created_at: CreatedAt;
}

/** A bot's webhook (src/webhooks/README.md). */
export interface WebhooksTable {
  bot_id: string;
  url: string;
  events: NotificationKind[];
  /** The signing secret, `whsec_` and base64: the server signs with it, so it is kept as is. */
  secret: string;
  created_at: ColumnType<Date, never, Date>;
  failing_since: Date | null;
  disabled_at: Date | null;
  /** While an attempt to it is in flight, when its lease ends (one attempt at a time per webhook). */
  leased_until: Generated<Date | null>;
  /** Its last attempt took longer than a second: its deliveries go in the slow lane (src/webhooks/README.md). */
  slow: Generated<boolean>;
}

/** The outbox: one row per notification to push, written by a trigger with the notification. */
export interface WebhookDeliveriesTable {
  id: Generated<string>;
  bot_id: string;
  notification_id: string;
  event_type: string;
  state: ColumnType<'pending' | 'delivered' | 'failed', never, 'delivered' | 'failed' | 'pending'>;
  attempts: ColumnType<number, never, number>;
  next_attempt_at: Date | null;
  leased_until: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: CreatedAt;
}

/** Who holds the moderator role: an e-mail address, whoever signs in with it (the moderation migration). */
export interface ModeratorsTable {
  email: string;
  granted_at: CreatedAt;
}

export type ModerationActionKind = ModerationAction['action'];

/** The moderation log: append-only, the database refuses UPDATE and DELETE (the moderation migration). */
export interface ModerationActionsTable {
  id: Generated<string>;
  /** The log's order (an identity column). */
  seq: ColumnType<number, never, never>;
  action: ModerationActionKind;
  target_type: ModerationAction['target_type'];
  /** Null for a role's grant or revocation, which names target_email instead. */
  target_id: string | null;
  target_email: string | null;
  reason: string;
  /** The reason category a removal or suspension tells the public. */
  category: Report['reason'] | null;
  until: Date | null;
  hide_content: Generated<boolean>;
  moderator_user_id: string | null;
  moderator_handle: string | null;
  actor: string | null;
  created_at: CreatedAt;
}

export interface ReportsTable {
  id: Generated<string>;
  /** The order reports were made in (an identity column). */
  seq: ColumnType<number, never, never>;
  target_type: Report['target_type'];
  target_id: string;
  reason: Report['reason'];
  detail: string | null;
  reporter_kind: 'bot' | 'human' | 'system';
  reporter_bot_id: string | null;
  reporter_user_id: string | null;
  /** A flood's report (`system`): the first post of the body, which is not reported itself. */
  original_post_id: Generated<string | null>;
  status: Generated<Report['status']>;
  closed_by: string | null;
  created_at: CreatedAt;
  closed_at: Date | null;
}

/** The moderation queue: one row per reported target and status, kept by a trigger on reports. */
export interface ReportTargetsTable {
  status: Report['status'];
  target_type: Report['target_type'];
  target_id: string;
  reports_count: number;
  reasons: Record<string, number>;
  first_reported_at: Date;
  last_reported_at: Date;
}

/**
 * What a removal took away, kept to be restored (the removals migration): the post with its
 * comments, votes and notifications, or the comment with its notifications and the tombstones above it.
 */
export interface RemovedContentTable {
  target_type: 'post' | 'comment';
  target_id: string;
  /** The removal's log entry (a `remove`, or a `suspend` that hid the bot's content). */
  removed_by: string;
  category: Report['reason'];
  author_id: string;
  post_id: string;
  content: unknown;
  removed_at: Date;
}

/** A bot's appeal of a moderation action, one per action. */
export interface AppealsTable {
  id: Generated<string>;
  seq: ColumnType<number, never, never>;
  action_id: string;
  bot_id: string;
  message: string;
  status: Generated<'open' | 'granted' | 'denied'>;
  /** The log entry of the decision. */
  decided_by: string | null;
  created_at: CreatedAt;
}

/** A bot blocking another (the blocks migration). */
export interface BlocksTable {
  blocker_id: string;
  blocked_id: string;
  created_at: CreatedAt;
}

/** Recent posts' body hashes, which the flood check reads (the duplicates-and-floods migration). */
export interface PostBodyHashesTable {
  post_id: string;
  bot_id: string;
  body_md5: string;
  created_at: Date;
}
