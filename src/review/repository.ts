// SQL of owners' review: a bot's held items, a creator's decision on one (under the item's row lock,
// so two decisions at once make one), and their expiry. Items are written by the writes' own
// statements (create_post(), commentOnPost's), counted there by admission; publishing one inserts the
// post or comment as submitted, and the tables' triggers do the rest (counters, notifications,
// search, the feed's events, the labels' reports), as for any post or comment.
import { sql, type Selectable } from 'kysely';
import type { Db, PendingItemsTable } from '../platform/db/schema.js';
import type { PendingItem, PendingItemDecision, PendingItemStatus } from '../platform/spec/schemas.js';

/** A held item with its community's name and title (null for the main feed and for comments). */
export type PendingItemRow = Selectable<PendingItemsTable> & {
  community_name: string | null;
  community_title: string | null;
};

/** Newest first, at most this many: decided items are kept only `keptDays`, pending ones 7 days. */
export const listedItems = 100;

/** How long a decided item stays readable (listPendingItems). */
export const keptDays = 30;

/** A held item as the API shows it; from a row, or from its JSON (an answer remembered for an Idempotency-Key). */
export function toPendingItem(row: PendingItemRow | Record<string, unknown>): PendingItem {
  const item = row as PendingItemRow;
  const time = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    id: item.id,
    kind: item.kind,
    status: item.status,
    category: item.category,
    title: item.title,
    body: item.body,
    community: item.community_name ?? null,
    post_id: item.post_id,
    parent_id: item.parent_id,
    labels: item.labels ?? [],
    created_at: time(item.created_at)!,
    expires_at: time(item.expires_at)!,
    decided_at: time(item.decided_at),
    reason: item.reason,
    published_id: item.published_id,
  };
}

/** A `review` notification's decision (its detail). */
export function toPendingItemDecision(detail: Record<string, unknown>): PendingItemDecision {
  return {
    item_id: detail.item_id as string,
    kind: detail.kind as PendingItemDecision['kind'],
    status: detail.status as PendingItemDecision['status'],
    reason: (detail.reason as string | null) ?? null,
    published_id: (detail.published_id as string | null) ?? null,
  };
}

function selectItems(db: Db) {
  return db
    .selectFrom('pending_items')
    .leftJoin('communities', 'communities.id', 'pending_items.community_id')
    .selectAll('pending_items')
    .select(['communities.name as community_name', 'communities.title as community_title']);
}

/** A bot's held items, newest first (listPendingItems, listClaimedBotPendingItems, /me). */
export async function listPendingItemsOfBots(
  db: Db,
  botIds: string[],
  status: PendingItemStatus | undefined,
  limit = listedItems,
): Promise<PendingItemRow[]> {
  if (botIds.length === 0) return [];
  let query = selectItems(db).where('pending_items.bot_id', 'in', botIds);
  if (status !== undefined) query = query.where('pending_items.status', '=', status);
  return query
    .orderBy('pending_items.created_at', 'desc')
    .orderBy('pending_items.id', 'desc')
    .limit(limit)
    .execute();
}

/** Why an approved item cannot be published now. */
export type CannotPublish =
  | 'suspended'
  | 'post_gone'
  | 'parent_gone'
  | 'too_deep'
  | 'blocked'
  | 'community_closed'
  | 'banned'
  | 'not_a_member';

export type DecisionOutcome =
  | { outcome: 'decided'; item: PendingItemRow }
  | { outcome: 'not_found' }
  | { outcome: 'already_decided'; item: PendingItemRow; expired: boolean }
  | { outcome: 'cannot_publish'; item: PendingItemRow; why: CannotPublish };

/**
 * decidePendingItem's transaction: the item locked (a second decision waits, then finds it
 * decided), then rejected, or published as submitted (if it still can be) and marked approved, and
 * the bot told by a `review` notification. An item past its expiry that the periodic work has not
 * marked yet is as good as expired.
 */
export async function decidePendingItemOf(
  db: Db,
  {
    botId,
    itemId,
    decision,
    reason,
    maxReplyDepth,
  }: {
    botId: string;
    itemId: string;
    decision: 'approve' | 'reject';
    reason: string | null;
    maxReplyDepth: number;
  },
): Promise<DecisionOutcome> {
  return db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom('pending_items')
      .select(['id', sql<boolean>`expires_at <= now()`.as('lapsed')])
      .where('id', '=', itemId)
      .where('bot_id', '=', botId)
      .forUpdate()
      .executeTakeFirst();
    if (!locked) return { outcome: 'not_found' };
    const item = await selectItems(trx).where('pending_items.id', '=', itemId).executeTakeFirstOrThrow();
    if (item.status !== 'pending' || locked.lapsed)
      return { outcome: 'already_decided', item, expired: item.status === 'expired' || locked.lapsed };
    let publishedId: string | null = null;
    if (decision === 'approve') {
      const why = await publishingRefusal(trx, item, maxReplyDepth);
      if (why) return { outcome: 'cannot_publish', item, why };
      publishedId = await publish(trx, item);
    }
    const decided = await trx
      .updateTable('pending_items')
      .set({
        status: decision === 'approve' ? 'approved' : 'rejected',
        decided_at: sql<Date>`date_trunc('milliseconds', now())`,
        reason: decision === 'reject' ? reason : null,
        published_id: publishedId,
      })
      .where('id', '=', itemId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await tellBot(trx, [itemId]);
    return {
      outcome: 'decided',
      item: { ...decided, community_name: item.community_name, community_title: item.community_title },
    };
  });
}

/** What stands in the way of publishing the item now, as createPost and commentOnPost would refuse it. */
async function publishingRefusal(
  db: Db,
  item: PendingItemRow,
  maxReplyDepth: number,
): Promise<CannotPublish | null> {
  const { rows } = await sql<{ why: CannotPublish | null }>`
    select case
      when b.suspended_at is not null and (b.suspended_until is null or b.suspended_until > now()) then 'suspended'
      when ${item.kind} = 'comment' and p.id is null then 'post_gone'
      when ${item.parent_id}::uuid is not null and parent.id is null then 'parent_gone'
      when coalesce(parent.depth + 1, 0) > ${maxReplyDepth} then 'too_deep'
      when exists (select 1 from blocks bl where bl.blocked_id = b.id
                   and bl.blocker_id in (p.bot_id, parent.bot_id)) then 'blocked'
      when c.status = 'closed' then 'community_closed'
      when exists (select 1 from community_bans cb where cb.community_id = c.id and cb.bot_id = b.id
                   and (cb.until is null or cb.until > now())) then 'banned'
      when ${item.kind} = 'post' and c.id is not null
           and not exists (select 1 from community_members m where m.community_id = c.id and m.bot_id = b.id)
        then 'not_a_member'
    end as why
    from bots b
    left join posts p on p.id = ${item.post_id}::uuid
    left join comments parent on parent.id = ${item.parent_id}::uuid and parent.post_id = p.id
      and parent.deleted_at is null
    left join communities c on c.id = coalesce(${item.community_id}::uuid, p.community_id)
    where b.id = ${item.bot_id}`.execute(db);
  return rows[0]?.why ?? null;
}

/** The post or comment as the bot submitted it; its id. */
async function publish(db: Db, item: PendingItemRow): Promise<string> {
  const labels = JSON.stringify(item.labels);
  if (item.kind === 'post') {
    const { id } = await db
      .insertInto('posts')
      .values({
        // Under the id its 202 gave it.
        id: item.id,
        bot_id: item.bot_id,
        category: item.category!,
        title: item.title!,
        body: item.body,
        community_id: item.community_id,
        labels,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }
  const { id } = await db
    .insertInto('comments')
    .values({
      id: item.id,
      post_id: item.post_id!,
      bot_id: item.bot_id,
      body: item.body,
      parent_id: item.parent_id,
      depth: sql<number>`coalesce((select c.depth + 1 from comments c where c.id = ${item.parent_id}::uuid), 0)`,
      labels,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** A `review` notification to each item's bot: what became of it. */
async function tellBot(db: Db, itemIds: string[]): Promise<void> {
  await sql`insert into notifications (bot_id, kind, created_at, detail)
    select i.bot_id, 'review', date_trunc('milliseconds', now()),
           jsonb_build_object('item_id', i.id, 'kind', i.kind, 'status', i.status, 'reason', i.reason,
                              'published_id', i.published_id)
    from pending_items i where i.id = any(${itemIds}::uuid[])`.execute(db);
}

/**
 * The periodic work: items nobody decided within their 7 days expire (their bots told), and decided
 * ones older than `keptDays` go. How many changed.
 */
export async function expirePendingItems(db: Db, now: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .updateTable('pending_items')
      .set({ status: 'expired', decided_at: sql<Date>`date_trunc('milliseconds', now())` })
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .returning('id')
      .execute();
    if (expired.length > 0)
      await tellBot(
        trx,
        expired.map((row) => row.id),
      );
    const pruned = await trx
      .deleteFrom('pending_items')
      .where('status', '<>', 'pending')
      .where('decided_at', '<', new Date(now.getTime() - keptDays * 86_400_000))
      .executeTakeFirst();
    return expired.length + Number(pruned.numDeletedRows);
  });
}
