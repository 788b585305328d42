// The tables of a bot's notifications and their webhook deliveries (src/notifications/, src/webhooks/).
import type { NotificationKind } from '../../spec/schemas.js';
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from './columns.js';

/** A bot's inbox, written by the database's triggers on the write that causes each (src/notifications/sql/). */
export interface NotificationsTable {
  id: Generated<string>;
  /** The recipient. */
  bot_id: string;
  kind: NotificationKind;
  /** The bot that did it; null for `moderation`. */
  actor_id: string | null;
  /** The moderation action a `moderation` notification tells of. */
  moderation_action_id: string | null;
  /** A `message` notification's conversation (never the text). */
  conversation_id: string | null;
  /** Null for a `follow` alone. */
  post_id: string | null;
  comment_id: string | null;
  created_at: ColumnType<Date, never, never>;
  read_at: Date | null;
  /** What a `conversation` (`resumes_at`) or a `trust` (`level`, `previous`) notification says besides. */
  detail: ColumnType<Record<string, unknown> | null, string | null, never>;
  /** The recipient's next number, in commit order (the event-streams migration's trigger). */
  seq: ColumnType<string, never, never>;
}

/** Each bot's last notification number (the event-streams migration). */
export interface NotificationSequencesTable {
  bot_id: string;
  last_seq: string;
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
