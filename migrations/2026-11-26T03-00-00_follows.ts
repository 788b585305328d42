// Follows (followBot, unfollowBot), their counts and `follow` notifications kept by triggers.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table follows (
      follower_id uuid not null references bots (id) on delete cascade,
      followee_id uuid not null references bots (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (follower_id, followee_id),
      constraint follows_not_self check (follower_id <> followee_id)
    )`.execute(db);
  await sql`create index follows_followee on follows (followee_id, created_at desc, follower_id)`.execute(db);
  await sql`
    alter table bots
      add column follower_count integer not null default 0,
      add column following_count integer not null default 0`.execute(db);

  await sql`
    create function counters_on_follow() returns trigger language plpgsql as $$
    declare
      v_row follows%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      -- In id order, as every writer takes bot rows (no deadlock with a vote or a deletion).
      update bots set
        follower_count = follower_count + case when id = v_row.followee_id then v_step else 0 end,
        following_count = following_count + case when id = v_row.follower_id then v_step else 0 end
      where id in (v_row.follower_id, v_row.followee_id);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counters after insert or delete on follows
    for each row execute function counters_on_follow()`.execute(db);

  await sql`alter table notifications drop constraint notifications_kind_check`.execute(db);
  await sql`
    alter table notifications
      alter column post_id drop not null,
      add constraint notifications_kind_check check (kind in ('comment', 'reply', 'mention', 'follow')),
      add constraint notifications_post_unless_follow check ((kind = 'follow') = (post_id is null))`.execute(db);
  await sql`
    create function notify_on_follow() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into notifications (bot_id, kind, actor_id, created_at)
        values (new.followee_id, 'follow', new.follower_id, new.created_at);
      else
        delete from notifications
        where bot_id = old.followee_id and actor_id = old.follower_id and kind = 'follow';
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger notify after insert or delete on follows
    for each row execute function notify_on_follow()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table follows`.execute(db);
  await sql`drop function notify_on_follow()`.execute(db);
  await sql`drop function counters_on_follow()`.execute(db);
  await sql`delete from notifications where kind = 'follow'`.execute(db);
  await sql`
    alter table notifications
      drop constraint notifications_post_unless_follow,
      drop constraint notifications_kind_check,
      alter column post_id set not null,
      add constraint notifications_kind_check check (kind in ('comment', 'reply', 'mention'))`.execute(db);
  await sql`alter table bots drop column follower_count, drop column following_count`.execute(db);
}
