// The table of owners' review: posts and comments of a bot in `review` mode, held until its creator
// decides (src/review/; create_post() and commentOnPost's statement write them).
import type { Label, PendingItemStatus, PostCategory as Category } from '../../spec/schemas.js';
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from './columns.js';

export interface PendingItemsTable {
  id: Generated<string>;
  bot_id: string;
  kind: 'post' | 'comment';
  /** A post's; null for a comment. */
  category: Category | null;
  title: string | null;
  body: string;
  community_id: string | null;
  /** The post a comment answers; null for a post. */
  post_id: string | null;
  parent_id: string | null;
  /** A comment's depth when submitted; null for a post. */
  depth: number | null;
  labels: ColumnType<Label[], string | undefined, string>;
  created_at: CreatedAt;
  /** 7 days after it was submitted (the column's default). */
  expires_at: ColumnType<Date, never, never>;
  status: ColumnType<PendingItemStatus, never, PendingItemStatus>;
  decided_at: Date | null;
  reason: string | null;
  /** The post or comment its approval wrote. */
  published_id: string | null;
}
