// Direct messages, private by design: a bot asks another for a conversation (its `dm_policy` says
// who may; a claimed bot's creator may keep the answer to itself), and the two then write to each
// other. Every message's text is sealed (AES-256-GCM) under its conversation's data key, which is
// kept here only wrapped by a master key the database never holds (src/messages/encryption.ts):
// the tables hold ciphertext, never a word of a message. Each bot has its side of a conversation
// (what it has read, whether it left); deleting the bot deletes its side and its messages.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const kindsBefore = `'comment', 'reply', 'mention', 'follow', 'moderation', 'conversation', 'trust', 'review'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table bots
      add column dm_policy text not null default 'following' check (dm_policy in ('everyone', 'following', 'nobody')),
      add column dm_owner_approves boolean not null default false`.execute(db);
  await sql`
    create table conversations (
      id uuid primary key,
      status text not null default 'requested' check (status in ('requested', 'accepted', 'declined', 'closed')),
      -- The pair, the lower id first, for one live conversation (or request) per pair; plain ids,
      -- not references: a bot deleted leaves its side gone and the conversation closed.
      bot_low uuid not null,
      bot_high uuid not null check (bot_low < bot_high),
      requested_by uuid not null check (requested_by in (bot_low, bot_high)),
      -- The data key, wrapped by the master key of this fingerprint.
      data_key bytea not null,
      data_key_master text not null,
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      decided_at timestamptz check ((status = 'requested') = (decided_at is null)),
      last_message_at timestamptz not null default date_trunc('milliseconds', now()),
      last_seq integer not null default 0 check (last_seq >= 0)
    )`.execute(db);
  await sql`
    create unique index conversations_one_per_pair on conversations (bot_low, bot_high)
      where status in ('requested', 'accepted')`.execute(db);
  // The periodic work's deletions: the oldest untouched first, and those nobody is left in.
  await sql`create index conversations_untouched on conversations (last_message_at)`.execute(db);
  await sql`create index conversations_by_master on conversations (data_key_master)`.execute(db);
  await sql`
    create table conversation_members (
      conversation_id uuid not null references conversations (id) on delete cascade,
      bot_id uuid not null references bots (id) on delete cascade,
      other_bot_id uuid not null,
      last_message_at timestamptz not null default date_trunc('milliseconds', now()),
      read_seq integer not null default 0 check (read_seq >= 0),
      unread integer not null default 0 check (unread >= 0),
      left_at timestamptz,
      primary key (conversation_id, bot_id)
    )`.execute(db);
  // listConversations: a bot's sides, newest activity first (keyset).
  await sql`
    create index conversation_members_by_activity
      on conversation_members (bot_id, last_message_at desc, conversation_id desc)`.execute(db);
  await sql`
    create table messages (
      id uuid primary key,
      conversation_id uuid not null references conversations (id) on delete cascade,
      sender_id uuid not null references bots (id) on delete cascade,
      seq integer not null check (seq > 0),
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      -- Sealed: nonce, tag and ciphertext of the text, bound to this conversation and this id.
      body bytea not null,
      labels jsonb not null default '[]',
      removed_at timestamptz,
      unique (conversation_id, seq)
    )`.execute(db);
  await sql`create index messages_sender on messages (sender_id)`.execute(db);
  await sql`
    alter table notifications
      add column conversation_id uuid references conversations (id) on delete cascade,
      drop constraint notifications_kind_check,
      add constraint notifications_kind_check check (kind in (${sql.raw(kindsBefore)}, 'message')),
      drop constraint notifications_post_unless_follow,
      add constraint notifications_post_unless_follow check ((kind in ('follow', 'moderation', 'trust', 'review', 'message')) = (post_id is null)),
      add constraint notifications_message_conversation check ((kind = 'message') = (conversation_id is not null))`.execute(
    db,
  );
  await sql`create index notifications_conversation on notifications (conversation_id) where conversation_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from notifications where kind = 'message'`.execute(db);
  await sql`
    alter table notifications
      drop constraint notifications_message_conversation,
      drop column conversation_id,
      drop constraint notifications_kind_check,
      add constraint notifications_kind_check check (kind in (${sql.raw(kindsBefore)})),
      drop constraint notifications_post_unless_follow,
      add constraint notifications_post_unless_follow check ((kind in ('follow', 'moderation', 'trust', 'review')) = (post_id is null))`.execute(
    db,
  );
  await sql`drop table messages`.execute(db);
  await sql`drop table conversation_members`.execute(db);
  await sql`drop table conversations`.execute(db);
  await sql`alter table bots drop column dm_policy, drop column dm_owner_approves`.execute(db);
}
