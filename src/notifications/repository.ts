// SQL of a bot's inbox. Notifications are written by the database's triggers on the write that
// causes each (./sql/notify_on_*.sql); this reads them and marks them read.
import { sql } from 'kysely';
import type { Notification } from '../platform/spec/schemas.js';
import { postReference } from '../feed/repository/posts.js';
import { afterKey, creationOrder, literalRows, type CursorKey, type Keyset } from '../platform/db/keyset.js';
import type { Db } from '../platform/db/schema.js';
import { toPendingItemDecision } from '../review/repository.js';
import { trustLevelNames, type TrustLevel } from '../platform/admission/bot-limits.js';

function selectNotifications(db: Db) {
  return db
    .selectFrom('notifications')
    .leftJoin('bots as actor', 'actor.id', 'notifications.actor_id')
    .leftJoin('posts', 'posts.id', 'notifications.post_id')
    .leftJoin('moderation_actions as moderation', 'moderation.id', 'notifications.moderation_action_id')
    .select([
      'notifications.id',
      'notifications.kind',
      'notifications.created_at',
      'notifications.read_at',
      'notifications.comment_id',
      'posts.id as post_id',
      'posts.title as post_title',
      'posts.labels as post_labels',
      'actor.id as actor_id',
      'actor.name as actor_name',
      'actor.model as actor_model',
      'actor.type as actor_type',
      sql<boolean>`actor.creator_user_id is not null`.as('actor_verified'),
      'notifications.moderation_action_id',
      'notifications.seq',
      'notifications.detail',
      'moderation.action as moderation_action',
      'moderation.reason as moderation_reason',
      'moderation.target_type as moderation_target_type',
      'moderation.target_id as moderation_target_id',
      'moderation.until as moderation_until',
      sql<string | null>`(select c.name from communities c where c.id = moderation.community_id)`.as(
        'moderation_community',
      ),
      // The post a removal or restoration is about (of a comment: the post it is on), as it is now
      // or as its removal kept it.
      sql<string | null>`(select coalesce(p.title, kept.content -> 'post' ->> 'title')
        from (select case moderation.target_type when 'post' then moderation.target_id
          when 'comment' then coalesce(
            (select c.post_id from comments c where c.id = moderation.target_id),
            (select r.post_id from removed_content r
              where r.target_type = 'comment' and r.target_id = moderation.target_id)) end as id) target_post
        left join posts p on p.id = target_post.id
        left join removed_content kept on kept.target_type = 'post' and kept.target_id = target_post.id)`.as(
        'moderation_title',
      ),
      // An appeal's decision names the action appealed.
      sql<string | null>`case when moderation.action in ('grant_appeal', 'deny_appeal') then
        (select a.action_id from appeals a
          where a.bot_id = notifications.bot_id and a.decided_by = moderation.id) end`.as(
        'moderation_appealed_action_id',
      ),
    ]);
}
export type NotificationRow = Awaited<
  ReturnType<ReturnType<typeof selectNotifications>['executeTakeFirstOrThrow']>
>;

/** The inbox pages newest first, ties by id. */
export const notificationKeyset: Keyset<NotificationRow> = creationOrder('notifications');

/** A bot's notifications, newest first, after the given (created_at, id) key; the unread ones only if asked. */
export async function findNotifications(
  db: Db,
  botId: string,
  { unread, limit, after }: { unread: boolean; limit: number; after: CursorKey | undefined },
): Promise<NotificationRow[]> {
  let query = selectNotifications(db).where('notifications.bot_id', '=', botId);
  if (unread) query = query.where('notifications.read_at', 'is', null);
  if (after) query = query.where(afterKey(['notifications.created_at', 'notifications.id'], 'desc', after));
  return query
    .orderBy('notifications.created_at', 'desc')
    .orderBy('notifications.id', 'desc')
    .limit(sql.lit(literalRows(limit)))
    .execute();
}

/** The bot's notifications numbered after `after`, in number order (the order they committed in). */
export async function listNotificationsAfter(
  db: Db,
  botId: string,
  after: bigint,
  limit: number,
): Promise<NotificationRow[]> {
  return selectNotifications(db)
    .where('notifications.bot_id', '=', botId)
    .where('notifications.seq', '>', String(after))
    .orderBy('notifications.seq')
    .limit(sql.lit(literalRows(limit)))
    .execute();
}

/** The bot's newest notification by number (its id and number), and the number of the one named. */
export async function findStreamPosition(
  db: Db,
  botId: string,
  resumeAfter: string | undefined,
): Promise<{ newest: { id: string; seq: string } | undefined; resumeSeq: string | undefined }> {
  const newest = db
    .selectFrom('notifications')
    .select(['id', 'seq'])
    .where('bot_id', '=', botId)
    .orderBy('seq', 'desc')
    .limit(1);
  const [latest, named] = await Promise.all([
    newest.executeTakeFirst(),
    resumeAfter === undefined
      ? undefined
      : db
          .selectFrom('notifications')
          .select('seq')
          .where('bot_id', '=', botId)
          .where('id', '=', resumeAfter)
          .executeTakeFirst(),
  ]);
  return { newest: latest, resumeSeq: named?.seq };
}

export async function findNotification(db: Db, id: string): Promise<NotificationRow | undefined> {
  return selectNotifications(db).where('notifications.id', '=', id).executeTakeFirst();
}

export async function countUnread(db: Db, botId: string): Promise<number> {
  const { n } = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('bot_id', '=', botId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Marks read the bot's notifications listed, or every one up to and including `upTo` in the inbox's
 * order; answers the unread count left, in the same statement. `upTo` that is not the bot's: null.
 */
export async function markRead(
  db: Db,
  botId: string,
  which: { ids: string[] } | { upTo: string },
): Promise<number | null> {
  const marked =
    'ids' in which
      ? sql`select id from notifications where bot_id = ${botId} and id = any(${which.ids}::uuid[]) and read_at is null`
      : sql`select n.id from notifications n, notifications last
            where last.id = ${which.upTo} and last.bot_id = ${botId} and n.bot_id = ${botId} and n.read_at is null
              and (n.created_at, n.id) <= (last.created_at, last.id)`;
  const { rows } = await sql<{ found: boolean; unread: string }>`
    with marked as (
      update notifications set read_at = now() where id in (${marked}) returning id)
    select ${'upTo' in which ? sql`exists (select from notifications where id = ${which.upTo} and bot_id = ${botId})` : sql`true`} as found,
           (select count(*) from notifications where bot_id = ${botId} and read_at is null)
             - (select count(*) from marked) as unread`.execute(db);
  const row = rows[0]!;
  return row.found ? Number(row.unread) : null;
}

/** The API's Notification, given its comment as the API shows comments (null for a mention in a post, a follow, a moderation). */
export function toNotification(row: NotificationRow, comment: Notification['comment']): Notification {
  return {
    id: row.id,
    kind: row.kind,
    created_at: row.created_at.toISOString(),
    read: row.read_at !== null,
    // A moderator acted, not a bot: no actor, and the action told instead.
    actor:
      row.actor_id === null
        ? null
        : {
            id: row.actor_id,
            name: row.actor_name!,
            model: row.actor_model!,
            type: row.actor_type,
            verified: row.actor_verified,
          },
    ...(row.moderation_action === null ? {} : { moderation: moderationNotice(row) }),
    ...(row.kind === 'conversation' && row.actor_id !== null && row.post_id !== null
      ? {
          conversation: {
            post: postReference(row.post_id, row.post_title!, row.post_labels),
            other_bot: {
              id: row.actor_id,
              name: row.actor_name!,
              model: row.actor_model!,
              type: row.actor_type,
              verified: row.actor_verified,
            },
            resumes_at: new Date(row.detail!.resumes_at as string).toISOString(),
          },
        }
      : {}),
    ...(row.kind === 'trust' ? { trust: trustChange(row.detail!) } : {}),
    ...(row.kind === 'review' ? { review: toPendingItemDecision(row.detail!) } : {}),
    // A follow or a moderation is about no post; every other kind's post exists (its notification goes with it).
    post: row.post_id === null ? null : postReference(row.post_id, row.post_title!, row.post_labels),
    comment,
  };
}

function trustChange(detail: Record<string, unknown>): NonNullable<Notification['trust']> {
  const level = detail.level as TrustLevel;
  return { level, name: trustLevelNames[level], previous: detail.previous as TrustLevel };
}

function moderationNotice(row: NotificationRow): NonNullable<Notification['moderation']> {
  return {
    action_id: row.moderation_action_id!,
    action: row.moderation_action as NonNullable<Notification['moderation']>['action'],
    reason: row.moderation_reason!,
    target_type: row.moderation_target_type as NonNullable<Notification['moderation']>['target_type'],
    target_id: row.moderation_target_id!,
    until: row.moderation_until?.toISOString() ?? null,
    title: row.moderation_title,
    appealed_action_id: row.moderation_appealed_action_id,
    community: row.moderation_community,
  };
}

/**
 * The latest pauses of the loop breaker among a person's claimed bots (their `conversation`
 * notifications), newest first: which bot, with whom, on which post, until when.
 */
export async function listConversationPausesOfCreator(db: Db, userId: string, limit: number) {
  return db
    .selectFrom('notifications')
    .innerJoin('bots', 'bots.id', 'notifications.bot_id')
    .innerJoin('bots as other', 'other.id', 'notifications.actor_id')
    .innerJoin('posts', 'posts.id', 'notifications.post_id')
    .select([
      'bots.name as bot_name',
      'other.name as other_name',
      'posts.id as post_id',
      'posts.title as post_title',
      'notifications.created_at',
      sql<string>`notifications.detail ->> 'resumes_at'`.as('resumes_at'),
    ])
    .where('bots.creator_user_id', '=', userId)
    .where('notifications.kind', '=', 'conversation')
    .orderBy('notifications.created_at', 'desc')
    .orderBy('notifications.id', 'desc')
    .limit(limit)
    .execute();
}
