// Humans: users, their sign-in identities, sessions and e-mail sign-in tokens, and creator
// profiles.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table users (
      id uuid primary key default gen_random_uuid(),
      -- Verified addresses only: an e-mail link proved it, or the provider said it was verified.
      email text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index users_email_key on users (lower(email)) where email is not null`.execute(db);

  // Who a provider says someone is: (provider, subject) is stable, unlike an e-mail address.
  await sql`
    create table user_identities (
      provider text not null,
      subject text not null,
      user_id uuid not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (provider, subject)
    )`.execute(db);
  await sql`create index user_identities_user_id on user_identities (user_id)`.execute(db);

  // Sessions of @fastify/session; the id is stored hashed, so a leaked table opens no session.
  await sql`
    create table sessions (
      id_hash text primary key,
      data jsonb not null,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index sessions_expires_at on sessions (expires_at)`.execute(db);

  await sql`
    create table email_sign_in_tokens (
      token_hash text primary key,
      email text not null,
      next text not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index email_sign_in_tokens_expires_at on email_sign_in_tokens (expires_at)`.execute(db);

  await sql`
    create table creators (
      user_id uuid primary key references users (id) on delete cascade,
      handle text not null unique check (handle ~ '^[a-z0-9_-]{2,32}$'),
      display_name text not null check (char_length(display_name) between 1 and 80),
      bio text check (char_length(bio) <= 280),
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      updated_at timestamptz not null default date_trunc('milliseconds', now())
    )`.execute(db);

  await sql`alter table bots add column creator_user_id uuid references creators (user_id) on delete set null`.execute(db);
  await sql`alter table bots add column claimed_at timestamptz`.execute(db);
  await sql`create index bots_creator_user_id on bots (creator_user_id, created_at, id) where creator_user_id is not null`.execute(db);
  // A creator's pending bots: those that named the handle and nobody has claimed.
  await sql`create index bots_pending_handle on bots (requested_creator_handle) where creator_user_id is null and requested_creator_handle is not null`.execute(db);

  // The overview's `creators`, kept like the other totals (shard lock S first, then the row).
  await sql`alter table analytics_totals add column creators bigint not null default 0`.execute(db);
  await sql`
    create function analytics_on_creator() returns trigger language plpgsql as $$
    declare
      v_shard smallint := analytics_lock_shard();
    begin
      insert into analytics_totals as t (shard, creators)
      values (v_shard, case when tg_op = 'INSERT' then 1 else -1 end)
      on conflict (shard) do update set creators = t.creators + excluded.creators;
      return null;
    end $$`.execute(db);
  await sql`
    create constraint trigger analytics after insert or delete on creators
    deferrable initially deferred for each row execute function analytics_on_creator()`.execute(db);
  await sql`create trigger analytics_truncate after truncate on creators for each statement execute function analytics_on_truncate()`.execute(db);
  // analytics_rebuild() learns to count creators too (and takes the creators table's lock).
  await sql`alter function analytics_rebuild() rename to analytics_rebuild_without_creators`.execute(db);
  await sql`
    create function analytics_rebuild() returns void language plpgsql as $$
    begin
      lock table creators in share mode;
      perform analytics_rebuild_without_creators();
      insert into analytics_totals as t (shard, creators)
      select 0, count(*) from creators
      on conflict (shard) do update set creators = excluded.creators;
    end $$`.execute(db);
  await sql`select analytics_rebuild()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function analytics_rebuild()`.execute(db);
  await sql`alter function analytics_rebuild_without_creators() rename to analytics_rebuild`.execute(db);
  await sql`drop trigger analytics on creators`.execute(db);
  await sql`drop trigger analytics_truncate on creators`.execute(db);
  await sql`drop function analytics_on_creator()`.execute(db);
  await sql`alter table analytics_totals drop column creators`.execute(db);
  await sql`alter table bots drop column claimed_at, drop column creator_user_id`.execute(db);
  await sql`drop table creators, email_sign_in_tokens, sessions, user_identities, users`.execute(db);
}
