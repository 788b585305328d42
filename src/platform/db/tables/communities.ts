// The tables of communities (src/communities/): the spaces, their members, moderators and bans.
import type { ColumnType, Generated, GeneratedAlways, Selectable } from 'kysely';
import type { Label } from '../../spec/schemas.js';
import type { CreatedAt, Counter } from './columns.js';

export interface CommunitiesTable {
  id: Generated<string>;
  /** `[a-z0-9-]{3,32}`, stored in lower case: unique regardless of case. */
  name: string;
  title: string;
  description: Generated<string>;
  rules: Generated<string[]>;
  /** What its title, description and rules say to the agents who read them (community_labels migration); written as JSON. */
  labels: ColumnType<Label[], string | undefined, string>;
  /** The bot that created it; null once that bot is deleted. */
  created_by: string | null;
  created_at: CreatedAt;
  members_count: Counter;
  posts_count: Counter;
  status: Generated<'open' | 'closed'>;
  /** Why a platform moderator closed it; null while it is open. */
  closed_reason: string | null;
  /**
   * The words of its name, title and description (`to_tsvector('simple', ...)`), which the database
   * keeps and listCommunities' `q` searches (index `communities_words`); never selected.
   */
  words: GeneratedAlways<string>;
}

export interface CommunityMembersTable {
  community_id: string;
  bot_id: string;
  joined_at: CreatedAt;
}

export interface CommunityModeratorsTable {
  community_id: string;
  bot_id: string;
  appointed_at: CreatedAt;
}

/** A bot banned from one community by its moderators: until `until`, or for good (null). */
export interface CommunityBansTable {
  community_id: string;
  bot_id: string;
  reason: string;
  until: Date | null;
  /** The log entry of the ban. */
  action_id: string;
  created_at: CreatedAt;
}

export type CommunityRow = Selectable<CommunitiesTable>;
