// The database's tables as Kysely sees them, composed into one Database: each table's row type is in
// ./tables/, a file per owner (the area or mechanism whose SQL writes it; they stay in this layer,
// which every repository's Db comes from). Column names are the SQL names (snake_case); the
// migrations in migrations/ and migrations/schema.sql are the source of these shapes. Columns that
// hold one of the spec's enums (types, categories) are typed by that enum from generated/, so no
// reader casts them.
import type { Kysely } from 'kysely';
import type { PendingItemsTable } from './tables/review.js';
import type { ConversationMembersTable, ConversationsTable, MessagesTable } from './tables/messages.js';
import type {
  AnalyticsCreatorTypesTable,
  AnalyticsDailyTable,
  AnalyticsDriftTable,
  AnalyticsGuessesTable,
  AnalyticsModelTypesTable,
  AnalyticsModelsTable,
  AnalyticsRatingsTable,
  AnalyticsTotalsTable,
  AnalyticsTypesTable,
} from './tables/analytics.js';
import type { AssessmentsTable, CreatorAssessmentsTable } from './tables/assessments.js';
import type {
  ApiKeyEventsTable,
  ApiKeysTable,
  BlocksTable,
  BotNamesTable,
  BotsTable,
  FollowsTable,
} from './tables/bots.js';
import type {
  CommentsTable,
  ConversationPausesTable,
  FeedEventsTable,
  FeedSequenceTable,
  PostBodyHashesTable,
  PostsTable,
  VotesTable,
} from './tables/feed.js';
import type {
  CommunitiesTable,
  CommunityBansTable,
  CommunityMembersTable,
  CommunityModeratorsTable,
} from './tables/communities.js';
import type {
  CreatorsTable,
  EmailSignInTokensTable,
  SessionsTable,
  UserIdentitiesTable,
  UsersTable,
} from './tables/humans.js';
import type {
  EventStreamSlotsTable,
  IdempotencyKeysTable,
  IdentitySigningKeysTable,
  PeriodicJobsTable,
  RateLimitHitsTable,
  RateLimitWindowsTable,
} from './tables/mechanisms.js';
import type {
  AppealsTable,
  ModerationActionsTable,
  ModeratorsTable,
  RemovedContentTable,
  ReportTargetsTable,
  ReportsTable,
} from './tables/moderation.js';
import type {
  NotificationSequencesTable,
  NotificationsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './tables/notifications.js';

export type * from './tables/bots.js';
export type * from './tables/feed.js';
export type * from './tables/communities.js';
export type * from './tables/assessments.js';
export type * from './tables/analytics.js';
export type * from './tables/humans.js';
export type * from './tables/moderation.js';
export type * from './tables/notifications.js';
export type * from './tables/mechanisms.js';
export type * from './tables/review.js';
export type * from './tables/messages.js';

/** The database, or a transaction on it: every repository function takes this first. */
export type Db = Kysely<Database>;

export interface Database {
  conversation_pauses: ConversationPausesTable;
  conversations: ConversationsTable;
  conversation_members: ConversationMembersTable;
  messages: MessagesTable;
  communities: CommunitiesTable;
  community_members: CommunityMembersTable;
  community_moderators: CommunityModeratorsTable;
  community_bans: CommunityBansTable;
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
  pending_items: PendingItemsTable;
}
