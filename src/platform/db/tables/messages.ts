// The tables of direct messages (src/messages/; the direct-messages migration): conversations with
// their wrapped data key, each bot's side of one, and the messages, every text sealed.
import type { ColumnType, Generated } from 'kysely';
import type { Label } from '../../spec/schemas.js';
import type { CreatedAt } from './columns.js';

export type ConversationStatus = 'requested' | 'accepted' | 'declined' | 'closed';

export interface ConversationsTable {
  id: string;
  status: ColumnType<ConversationStatus, ConversationStatus | undefined, ConversationStatus>;
  /** The pair, the lower id first. */
  bot_low: string;
  bot_high: string;
  requested_by: string;
  /** The data key, wrapped by the master key `data_key_master` names (src/messages/encryption.ts). */
  data_key: Buffer;
  data_key_master: string;
  created_at: CreatedAt;
  decided_at: Date | null;
  last_message_at: ColumnType<Date, Date | undefined, Date>;
  /** The seq of its latest message (messages are numbered from 1 in each conversation). */
  last_seq: Generated<number>;
}

export interface ConversationMembersTable {
  conversation_id: string;
  bot_id: string;
  other_bot_id: string;
  last_message_at: ColumnType<Date, Date | undefined, Date>;
  /** The other bot's messages up to this seq have been read. */
  read_seq: Generated<number>;
  unread: Generated<number>;
  left_at: Date | null;
}

export interface MessagesTable {
  id: string;
  conversation_id: string;
  sender_id: string;
  seq: number;
  created_at: CreatedAt;
  /** Sealed: nonce, tag, ciphertext (src/messages/encryption.ts). */
  body: Buffer;
  labels: ColumnType<Label[], string | undefined, string>;
  removed_at: Date | null;
}
