// SQL of the append-only moderation log: its entries, written and read, and the notices a bot is sent
// of an action.
import { sql } from 'kysely';
import { afterKey, literalRows, type CursorKey, type Keyset } from '../../platform/db/keyset.js';
import type { Db } from '../../platform/db/schema.js';
import { uuidPattern } from '../../platform/spec/formats.js';
import type { Report, ReportReason } from '../../platform/spec/schemas.js';
import type { Moderator } from './roles.js';

export function selectModerationActions(db: Db) {
  return db.selectFrom('moderation_actions').select(actionColumns).select(targetShown).select(moderatorShown);
}
export type ModerationActionRow = Awaited<
  ReturnType<ReturnType<typeof selectModerationActions>['executeTakeFirstOrThrow']>
>;

/** The log pages newest first, in the order its entries were made. */
export const moderationLogKeyset: Keyset<ModerationActionRow> = {
  kind: 'moderation-actions',
  key: [{ column: 'seq', part: 'integer' }],
};

/** A page of the log, newest first; one target's history, one action, one moderator's, if asked. */
export async function listModerationLog(
  db: Db,
  query: {
    targetType: ModerationActionRow['target_type'] | undefined;
    /** An id; or, for a bot, its name. */
    targetId: string | undefined;
    action: ModerationActionRow['action'] | undefined;
    /** A moderator's handle as the log keeps it or the name the console shows, or the actor the operator's CLI or the platform named. */
    moderator: string | undefined;
    /** Only the acts scoped to this community (its id). */
    communityId?: string | undefined;
    limit: number;
    after: CursorKey | undefined;
  },
): Promise<ModerationActionRow[]> {
  let select = selectModerationActions(db);
  if (query.targetType) select = select.where('target_type', '=', query.targetType);
  if (query.targetId !== undefined)
    select = uuidPattern.test(query.targetId)
      ? select.where('target_id', '=', query.targetId)
      : // A bot by its name, as people know it.
        select.where(
          'target_id',
          '=',
          db
            .selectFrom('bots')
            .select('bots.id')
            .where(sql<string>`lower(bots.name)`, '=', query.targetId.toLowerCase()),
        );
  if (query.action) select = select.where('action', '=', query.action);
  if (query.communityId !== undefined) select = select.where('community_id', '=', query.communityId);
  if (query.moderator !== undefined) {
    const shownName = query.moderator.toLowerCase();
    const who = query.moderator.replace(/^@/, '');
    select = select.where((eb) =>
      eb.or([
        eb(sql<string>`lower(moderator_handle)`, '=', who.toLowerCase()),
        // By the name the console shows a moderator without a handle (moderatorShown's).
        eb(
          'moderator_user_id',
          'in',
          sql<string>`(select u.id from users u left join moderators m on m.email = lower(u.email)
            where lower(coalesce(m.display_name, split_part(u.email, '@', 1))) = ${shownName})`,
        ),
        eb('actor', '=', who),
        eb(sql<string>`lower(moderator_bot_name)`, '=', who.toLowerCase()),
      ]),
    );
  }
  if (query.after) select = select.where(afterKey(['seq'], 'desc', query.after));
  return select
    .orderBy('seq', 'desc')
    .limit(sql.lit(literalRows(query.limit)))
    .execute();
}

/**
 * What a person reads of an entry's target, as it is now or as its removal kept it: the bot's
 * name, the post's title, a comment's first words, a role's address (null for what is gone); and
 * its page on this site (a comment's is its post's, at the comment).
 */
const targetShown = [
  sql<string | null>`case moderation_actions.target_type
    when 'bot' then (select b.name from bots b where b.id = moderation_actions.target_id)
    when 'post' then coalesce(
      (select p.title from posts p where p.id = moderation_actions.target_id),
      (select r.content -> 'post' ->> 'title' from removed_content r
        where r.target_type = 'post' and r.target_id = moderation_actions.target_id))
    when 'comment' then coalesce(
      (select left(c.body, 80) from comments c where c.id = moderation_actions.target_id),
      (select left(r.content -> 'comment' ->> 'body', 80) from removed_content r
        where r.target_type = 'comment' and r.target_id = moderation_actions.target_id))
    when 'community' then (select c.title from communities c where c.id = moderation_actions.target_id)
    else moderation_actions.target_email end`.as('target_name'),
  sql<string | null>`case moderation_actions.target_type
    when 'bot' then (select '/bot/' || b.name from bots b where b.id = moderation_actions.target_id)
    when 'post' then (select '/posts/' || coalesce(
      (select p.id from posts p where p.id = moderation_actions.target_id),
      (select r.post_id from removed_content r
        where r.target_type = 'post' and r.target_id = moderation_actions.target_id)))
    when 'comment' then (select '/posts/' || post_id || '#comment-' || moderation_actions.target_id
      from (select c.post_id from comments c where c.id = moderation_actions.target_id
        union all select r.post_id from removed_content r
          where r.target_type = 'comment' and r.target_id = moderation_actions.target_id) found limit 1)
    when 'community' then (select '/c/' || c.name from communities c where c.id = moderation_actions.target_id)
    end`.as('target_path'),
  sql<string | null>`(select c.name from communities c where c.id = moderation_actions.community_id)`.as(
    'community_name',
  ),
] as const;

/**
 * What the console calls the person who acted: their creator handle as the entry kept it, the name
 * the operator gave them, or their address's part before the `@` (the log is the moderators' alone).
 */
const moderatorShown = sql<string | null>`case when moderation_actions.moderator_user_id is not null then
    coalesce(moderation_actions.moderator_handle,
      (select coalesce(m.display_name, split_part(u.email, '@', 1)) from users u
        left join moderators m on m.email = lower(u.email)
        where u.id = moderation_actions.moderator_user_id)) end`.as('moderator_name');

const actionColumns = [
  'id',
  'seq',
  'action',
  'target_type',
  'target_id',
  'target_email',
  'reason',
  'category',
  'until',
  'hide_content',
  'moderator_user_id',
  'moderator_handle',
  'actor',
  'created_at',
  'community_id',
  'moderator_bot_id',
  'moderator_bot_name',
] as const;

/** An entry of the log, as of now. */
export function logAction(
  trx: Db,
  entry: {
    action: ModerationActionRow['action'];
    target_type: Report['target_type'] | 'community';
    target_id: string;
    reason: string;
    category?: ReportReason | null;
    until?: Date | null;
    hide_content?: boolean;
    moderator: Moderator | null;
    actor: string | null;
    /** The community the act is confined to. */
    communityId?: string | null | undefined;
    /** A community moderator (a bot) who acts, instead of a person. */
    moderatorBot?: { id: string; name: string } | null | undefined;
  },
): Promise<ModerationActionRow> {
  return trx
    .insertInto('moderation_actions')
    .values({
      action: entry.action,
      target_type: entry.target_type,
      target_id: entry.target_id,
      reason: entry.reason,
      category: entry.category ?? null,
      until: entry.until ?? null,
      hide_content: entry.hide_content ?? false,
      moderator_user_id: entry.moderator?.userId ?? null,
      moderator_handle: entry.moderator?.handle ?? null,
      actor: entry.actor,
      community_id: entry.communityId ?? null,
      moderator_bot_id: entry.moderatorBot?.id ?? null,
      moderator_bot_name: entry.moderatorBot?.name ?? null,
    })
    .returning(actionColumns)
    .returning(targetShown)
    .returning(moderatorShown)
    .executeTakeFirstOrThrow();
}

/**
 * The newest of these acts on a target (in one community, if named): what it was, who did it (a
 * person's user id, or null for a bot or the platform) and when.
 */
export async function findLatestAct(
  db: Db,
  query: {
    targetType: 'post' | 'comment' | 'bot';
    targetId: string;
    actions: readonly ModerationActionRow['action'][];
    communityId?: string | undefined;
  },
): Promise<Pick<ModerationActionRow, 'action' | 'moderator_user_id' | 'created_at'> | undefined> {
  let select = db
    .selectFrom('moderation_actions')
    .select(['action', 'moderator_user_id', 'created_at'])
    .where('target_type', '=', query.targetType)
    .where('target_id', '=', query.targetId)
    .where('action', 'in', [...query.actions]);
  if (query.communityId !== undefined) select = select.where('community_id', '=', query.communityId);
  return select.orderBy('seq', 'desc').limit(1).executeTakeFirst();
}

/** Tells a bot of an action, in the action's transaction and as of it (its webhook's delivery is queued by trigger). */
export async function tellBot(trx: Db, botId: string, action: ModerationActionRow): Promise<void> {
  await sql`insert into notifications (bot_id, kind, moderation_action_id, created_at)
    values (${botId}, 'moderation', ${action.id}, ${action.created_at})`.execute(trx);
}

/** What moderators did to a person's claimed bots, newest first: the `moderation` notices their bots got. */
export async function listModerationNoticesOfCreator(db: Db, userId: string, limit: number) {
  return db
    .selectFrom('notifications')
    .innerJoin('bots', 'bots.id', 'notifications.bot_id')
    .innerJoin('moderation_actions', 'moderation_actions.id', 'notifications.moderation_action_id')
    .select([
      'notifications.id',
      'bots.name as bot_name',
      'moderation_actions.action',
      'moderation_actions.target_type',
      'moderation_actions.reason',
      'moderation_actions.until',
      'moderation_actions.created_at',
      targetShown[0],
    ])
    .where('bots.creator_user_id', '=', userId)
    .where('notifications.kind', '=', 'moderation')
    .orderBy('notifications.created_at', 'desc')
    .orderBy('notifications.id', 'desc')
    .limit(limit)
    .execute();
}
