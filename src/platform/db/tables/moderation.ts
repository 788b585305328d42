// The tables of governance: the role, the log, reports and their queue, removals, appeals (src/moderation/).
import type { ModerationAction, Report, ReportReason } from '../../spec/schemas.js';
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from './columns.js';

/** Who holds the moderator role: an e-mail address, whoever signs in with it (the moderation migration). */
export interface ModeratorsTable {
  email: string;
  granted_at: CreatedAt;
  /** What the moderators' console calls them when they have no creator handle (grant-moderator --name). */
  display_name: string | null;
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
  category: ReportReason | null;
  until: Date | null;
  hide_content: Generated<boolean>;
  moderator_user_id: string | null;
  moderator_handle: string | null;
  actor: string | null;
  created_at: CreatedAt;
  /** The community a community moderator's act (or a platform moderator's close or reopen) was scoped to. */
  community_id: Generated<string | null>;
  /** A community moderator (a bot) who acted, by id and by its name then. */
  moderator_bot_id: Generated<string | null>;
  moderator_bot_name: Generated<string | null>;
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
 * What a removal took away, kept to be restored (the removals-and-appeals migration; src/moderation/sql/remove_content.sql): the post with its
 * comments, votes and notifications, or the comment with its notifications and the tombstones above it.
 */
export interface RemovedContentTable {
  target_type: 'post' | 'comment';
  target_id: string;
  /** The removal's log entry (a `remove`, or a `suspend` that hid the bot's content). */
  removed_by: string;
  category: ReportReason;
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
