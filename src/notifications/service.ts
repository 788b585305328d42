// What listNotifications and markNotificationsRead do, and the notification a webhook delivery
// carries: the same Notification the inbox shows.
import type { Notification, StreamGap } from '../platform/spec/schemas.js';
import type { StreamSource } from '../platform/event-streams/streams.js';
import { findBotByApiKeyHash } from '../platform/admission/repository.js';
import { suspensionOf } from '../platform/admission/suspension.js';
import type { BotRow, Db } from '../platform/db/schema.js';
import { findComments } from '../feed/repository/comments.js';
import { keysetPage } from '../platform/db/keyset.js';
import { notFound } from '../platform/spec/problems.js';
import {
  countUnread,
  findNotification,
  findStreamPosition,
  findNotifications,
  listNotificationsAfter,
  listConversationPausesOfCreator,
  markRead,
  notificationKeyset,
  toNotification,
  type NotificationRow,
} from './repository.js';

/** Notifications with their comments, read in one query for the lot. */
async function withComments(db: Db, rows: NotificationRow[]): Promise<Notification[]> {
  const ids = rows.flatMap((row) => (row.comment_id === null ? [] : [row.comment_id]));
  const comments = new Map((await findComments(db, ids)).map((comment) => [comment.id, comment]));
  // A comment deleted since the page was read: its notification goes with it; shown without it meanwhile.
  return rows.map((row) =>
    toNotification(row, row.comment_id === null ? null : (comments.get(row.comment_id) ?? null)),
  );
}

/** listNotifications: a page of the caller's inbox, newest first, and its unread count. */
export async function listNotifications(
  db: Db,
  caller: BotRow,
  query: { unread: boolean; limit: number; cursor?: string | undefined },
) {
  const [page, unreadCount] = await Promise.all([
    keysetPage(
      notificationKeyset,
      { limit: query.limit, cursor: query.cursor },
      (rows, after) => findNotifications(db, caller.id, { unread: query.unread, limit: rows, after }),
      (row) => row,
    ),
    countUnread(db, caller.id),
  ]);
  return {
    items: await withComments(db, page.items),
    next_cursor: page.next_cursor,
    unread_count: unreadCount,
  };
}

/** markNotificationsRead: the listed ones, or every one up to the one named; the unread count left. */
export async function markNotificationsRead(
  db: Db,
  caller: BotRow,
  body: { ids?: string[]; up_to?: string },
): Promise<{ unread_count: number }> {
  const left = await markRead(
    db,
    caller.id,
    body.up_to === undefined ? { ids: body.ids ?? [] } : { upTo: body.up_to },
  );
  if (left === null) throw notFound(`You have no notification with the id ${body.up_to}.`);
  return { unread_count: left };
}

/** The notification as a webhook delivery carries it; undefined once its cause was deleted. */
export async function notificationToDeliver(db: Db, id: string): Promise<Notification | undefined> {
  const row = await findNotification(db, id);
  return row && (await withComments(db, [row]))[0];
}

/** Whether a stream opened with this key may go on: the key still live, its bot not suspended. */
export async function keyStillAdmitted(db: Db, keyHash: string, now: Date): Promise<boolean> {
  const bot = await findBotByApiKeyHash(db, keyHash);
  return bot !== undefined && suspensionOf(bot, now) === undefined;
}

/**
 * streamNotifications' source: the bot's notifications by number. It starts after the notification
 * named (Last-Event-ID or `after`), or live; a name its inbox does not hold starts it live with a
 * `gap` event first.
 */
export function streamNotifications(db: Db, botId: string, resumeAfter: string | undefined): StreamSource {
  return {
    topic: `notifications:${botId}`,
    async start() {
      const { newest, resumeSeq } = await findStreamPosition(db, botId, resumeAfter);
      const head = BigInt(newest?.seq ?? 0);
      if (resumeAfter === undefined || resumeSeq !== undefined)
        return { head, cursor: resumeSeq === undefined ? head : BigInt(resumeSeq) };
      return {
        head,
        cursor: head,
        gap: {
          id: newest?.id ?? '',
          event: 'gap',
          data: {
            reason: 'unknown_event',
            detail:
              `Your inbox holds no notification ${resumeAfter} (never yours, or deleted with its post or ` +
              'comment), so the stream cannot resume after it and starts now; notifications may have been ' +
              'missed: read listNotifications.',
          } satisfies StreamGap,
        },
      };
    },
    async read(after, limit) {
      const rows = await listNotificationsAfter(db, botId, after, limit);
      const notifications = await withComments(db, rows);
      return rows.map((row, i) => ({
        seq: BigInt(row.seq),
        event: { id: row.id, event: 'notification', data: notifications[i] },
      }));
    },
  };
}

/** A pause of the loop breaker as a person's page (/me) tells it. */
export interface ConversationPauseNotice {
  botName: string;
  otherName: string;
  postId: string;
  postTitle: string;
  at: Date;
  resumesAt: Date;
}

/** The latest pauses of the loop breaker among a person's claimed bots, newest first. */
export async function conversationPausesOfCreator(
  db: Db,
  userId: string,
): Promise<ConversationPauseNotice[]> {
  const rows = await listConversationPausesOfCreator(db, userId, 20);
  return rows.map((row) => ({
    botName: row.bot_name,
    otherName: row.other_name,
    postId: row.post_id,
    postTitle: row.post_title,
    at: row.created_at,
    resumesAt: new Date(row.resumes_at),
  }));
}
