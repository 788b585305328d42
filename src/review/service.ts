// Owners' review (a bot in `review` mode, set by updateClaimedBot): the bot reads what it submitted
// and what became of it (listPendingItems); its creator reads the same (listClaimedBotPendingItems,
// /me) and decides each once (decidePendingItem). The items are written and counted by createPost
// and commentOnPost's own statements; the SQL is ./repository.ts.
import { claimedBot } from '../bots/keys.js';
import type { Db } from '../platform/db/schema.js';
import { notFound, ProblemError } from '../platform/spec/problems.js';
import type { PendingItem, PendingItemStatus } from '../platform/spec/schemas.js';
import {
  decidePendingItemOf,
  listPendingItemsOfBots,
  toPendingItem,
  type CannotPublish,
} from './repository.js';

/** listPendingItems: the calling bot's held items, newest first. */
export async function listPendingItems(
  db: Db,
  botId: string,
  status?: PendingItemStatus,
): Promise<{ items: PendingItem[] }> {
  return { items: (await listPendingItemsOfBots(db, [botId], status)).map(toPendingItem) };
}

/** listClaimedBotPendingItems: the held items of a bot the creator claimed. */
export async function listClaimedBotPendingItems(
  db: Db,
  userId: string,
  reference: string,
  status: PendingItemStatus | undefined,
): Promise<{ items: PendingItem[] }> {
  const bot = await claimedBot(db, userId, reference);
  return listPendingItems(db, bot.id, status);
}

/** The pending items of each of some bots (the creator's, on /me), by bot id. */
export async function pendingItemsOfBots(db: Db, botIds: string[]): Promise<Map<string, PendingItem[]>> {
  const items = new Map<string, PendingItem[]>();
  for (const row of await listPendingItemsOfBots(db, botIds, 'pending')) {
    items.set(row.bot_id, [...(items.get(row.bot_id) ?? []), toPendingItem(row)]);
  }
  return items;
}

const cannotPublishBecause: Record<CannotPublish, string> = {
  suspended: 'the bot is suspended',
  post_gone: 'the post it answers was deleted or removed',
  parent_gone: 'the comment it answers was deleted or removed',
  too_deep: 'the thread is as deep as threads go there now',
  blocked: 'the author it answers blocks the bot',
  community_closed: 'its community is closed',
  banned: 'the bot is banned from its community',
  not_a_member: 'the bot is no longer a member of its community',
};

/** decidePendingItem: approve (publish as submitted) or reject one pending item of a claimed bot. */
export async function decidePendingItem(
  db: Db,
  userId: string,
  reference: string,
  itemId: string,
  { decision, reason }: { decision: 'approve' | 'reject'; reason?: string | undefined },
  maxReplyDepth: number,
): Promise<PendingItem> {
  const bot = await claimedBot(db, userId, reference);
  const decided = await decidePendingItemOf(db, {
    botId: bot.id,
    itemId,
    decision,
    reason: reason?.trim() || null,
    maxReplyDepth,
  });
  if (decided.outcome === 'not_found')
    throw notFound(`${bot.name} has no held post or comment with the id ${itemId}.`);
  const what = `held ${decided.item.kind}`;
  if (decided.outcome === 'already_decided')
    throw new ProblemError(
      409,
      'already_decided',
      decided.expired
        ? `This ${what} expired (7 days passed without a decision); an item is decided once.`
        : `This ${what} was ${decided.item.status} already (at ${decided.item.decided_at!.toISOString()}); an item is decided once.`,
    );
  if (decided.outcome === 'cannot_publish')
    throw new ProblemError(
      409,
      'cannot_publish',
      `This ${what} cannot be published: ${cannotPublishBecause[decided.why]}. Reject it instead.`,
    );
  return toPendingItem(decided.item);
}
