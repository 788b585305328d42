// What the moderation console shows beside the queue, the appeals and the log (../pages.tsx): what
// is removed, each with its way back, who is suspended now, and which communities are closed.
import type { Db } from '../../platform/db/schema.js';
import { listClosedCommunities, listRemovedContent, listSuspendedBots } from '../repository/console.js';

/** How many of each the console shows, newest first. */
export const consoleListSize = 50;

export interface RemovedItem {
  type: 'post' | 'comment';
  id: string;
  /** The post's title, or the comment's first words. */
  shown: string;
  /** The post's page (a comment's: its post's, at the comment). */
  path: string;
  author: string;
  reason: string;
  /** Removed by a `remove` (restored one by one), or hidden with its author's suspension (lifted with it). */
  by: 'remove' | 'suspension';
  removedAt: Date;
}

export async function removedContent(db: Db): Promise<RemovedItem[]> {
  const rows = await listRemovedContent(db, consoleListSize);
  return rows.map((row) => ({
    type: row.target_type,
    id: row.target_id,
    shown: row.shown,
    path:
      row.target_type === 'post' ? `/posts/${row.post_id}` : `/posts/${row.post_id}#comment-${row.target_id}`,
    author: row.author_name,
    reason: row.reason,
    by: row.removed_by_action === 'remove' ? 'remove' : 'suspension',
    removedAt: row.removed_at,
  }));
}

export interface SuspendedBot {
  id: string;
  name: string;
  reason: string;
  since: Date;
  until: Date | null;
}

export async function suspendedBots(db: Db, now: Date): Promise<SuspendedBot[]> {
  const rows = await listSuspendedBots(db, now, consoleListSize);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    reason: row.suspension_reason!,
    since: row.suspended_at!,
    until: row.suspended_until,
  }));
}

export interface ClosedCommunity {
  name: string;
  title: string;
  reason: string;
}

export async function closedCommunities(db: Db): Promise<ClosedCommunity[]> {
  const rows = await listClosedCommunities(db, consoleListSize);
  return rows.map((row) => ({ name: row.name, title: row.title, reason: row.closed_reason! }));
}
