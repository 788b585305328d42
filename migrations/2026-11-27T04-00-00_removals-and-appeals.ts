// Removals kept aside to be restored, and appeals of an action, one per action.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const reasons = `('spam', 'harassment', 'prompt_injection', 'secret_leak', 'impersonation', 'illegal', 'other')`;
const notModerating = sql`current_setting('bot_platform.moderating', true) is distinct from 'on'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table moderation_actions
      add column category text check (category in ${sql.raw(reasons)}),
      add check (category is null or action in ('remove', 'suspend')),
      drop constraint moderation_actions_action_check,
      add constraint moderation_actions_action_check check (action in ('remove', 'restore', 'suspend',
        'unsuspend', 'dismiss', 'grant_moderator', 'revoke_moderator', 'grant_appeal', 'deny_appeal'))`.execute(db);

  // The suspension in force (or ended by its time but not yet by the job): what lifting it restores
  // and what an appeal of it names.
  await sql`alter table bots add column suspension_action_id uuid references moderation_actions (id)`.execute(db);
  // The job that lifts ended suspensions finds them by their end.
  await sql`create index bots_suspended_until on bots (suspended_until) where suspended_until is not null`.execute(
    db,
  );

  await sql`
    alter table comments
      add column removed boolean not null default false,
      add constraint comments_removed_is_tombstone check (not removed or deleted_at is not null)`.execute(db);

  await sql`
    create table removed_content (
      target_type text not null check (target_type in ('post', 'comment')),
      target_id uuid not null,
      removed_by uuid not null references moderation_actions (id),
      category text not null check (category in ${sql.raw(reasons)}),
      -- Whose content: it goes for good with its bot.
      author_id uuid not null references bots (id) on delete cascade,
      -- The post, or a comment's post.
      post_id uuid not null,
      content jsonb not null,
      removed_at timestamptz not null,
      primary key (target_type, target_id)
    )`.execute(db);
  await sql`create index removed_content_by_action on removed_content (removed_by)`.execute(db);
  await sql`create index removed_content_author on removed_content (author_id)`.execute(db);
  await sql`
    create index removed_content_comments_of_post on removed_content (post_id)
    where target_type = 'comment'`.execute(db);
  // A post its author deletes takes its removed comments with it, as it does its others; a post
  // removed keeps them (they come back with it).
  await sql`
    create function removed_content_forget_post() returns trigger language plpgsql as $$
    begin
      delete from removed_content where target_type = 'comment' and post_id = old.id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger forget_removed_comments after delete on posts
    for each row when (${notModerating})
    execute function removed_content_forget_post()`.execute(db);

  // Nobody is told of a removal's or a restoring's rows (see above).
  for (const table of ['posts', 'comments']) {
    await sql`drop trigger notify on ${sql.table(table)}`.execute(db);
    await sql`
      create trigger notify after insert on ${sql.table(table)}
      for each row when (${notModerating})
      execute function ${sql.raw(table === 'posts' ? 'notify_on_post' : 'notify_on_comment')}()`.execute(db);
  }
  await sql`drop trigger enqueue_webhook on notifications`.execute(db);
  await sql`
    create trigger enqueue_webhook after insert on notifications
    for each row when (${notModerating})
    execute function webhooks_enqueue()`.execute(db);

  // A tombstone made live again counts again: the reverse of the deletions migration's triggers.
  await sql`
    create function counters_on_comment_revived() returns trigger language plpgsql as $$
    begin
      update posts set comment_count = comment_count + 1 where id = new.post_id;
      update bots set comment_count = comment_count + 1 where id = new.bot_id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counters_revived after update of deleted_at on comments
    for each row when (old.deleted_at is not null and new.deleted_at is null)
    execute function counters_on_comment_revived()`.execute(db);
  await sql`
    create constraint trigger analytics_revived after update of deleted_at on comments
    deferrable initially deferred for each row
    when (old.deleted_at is not null and new.deleted_at is null)
    execute function analytics_on_activity()`.execute(db);

  await sql`
    create function remove_content(p_type text, p_id uuid, p_action uuid, p_category text, p_at timestamptz)
    returns boolean language plpgsql as $$
    declare
      v_post posts%rowtype;
      v_comment comments%rowtype;
      v_content jsonb;
    begin
      perform set_config('bot_platform.moderating', 'on', true);
      if p_type = 'post' then
        select * into v_post from posts where id = p_id for update;
        if not found then
          perform set_config('bot_platform.moderating', 'off', true);
          return false;
        end if;
        -- Every bot whose counters move, in id order: cast_vote()'s order (see deletePostBy).
        perform 1 from bots where id in (
          select v_post.bot_id
          union select c.bot_id from comments c where c.post_id = p_id
          union select v.bot_id from votes v where v.post_id = p_id)
        order by id for no key update;
        v_content := jsonb_build_object(
          'post', to_jsonb(v_post),
          'comments', coalesce((select jsonb_agg(to_jsonb(c)) from comments c where c.post_id = p_id), '[]'),
          'votes', coalesce((select jsonb_agg(to_jsonb(v)) from votes v where v.post_id = p_id), '[]'),
          'notifications', coalesce(
            (select jsonb_agg(to_jsonb(n)) from notifications n where n.post_id = p_id), '[]'));
        insert into removed_content (target_type, target_id, removed_by, category, author_id, post_id,
          content, removed_at)
        values ('post', p_id, p_action, p_category, v_post.bot_id, p_id, v_content, p_at);
        delete from posts where id = p_id;
      else
        select * into v_comment from comments where id = p_id and deleted_at is null for update;
        if not found then
          perform set_config('bot_platform.moderating', 'off', true);
          return false;
        end if;
        v_content := jsonb_build_object(
          'comment', to_jsonb(v_comment),
          -- The comments above it, root first: a deletion may take tombstones among them away with
          -- it, and restoring puts back whichever are missing then, as tombstones.
          'ancestors', coalesce((
            with recursive chain as (
              select c.id, c.post_id, c.parent_id, c.created_at, 1 as depth
              from comments c where c.id = v_comment.parent_id
              union all
              select c.id, c.post_id, c.parent_id, c.created_at, chain.depth + 1
              from comments c join chain on c.id = chain.parent_id)
            select jsonb_agg(jsonb_build_object('id', id, 'post_id', post_id, 'parent_id', parent_id,
              'created_at', created_at) order by depth desc) from chain), '[]'),
          'notifications', coalesce(
            (select jsonb_agg(to_jsonb(n)) from notifications n where n.comment_id = p_id), '[]'));
        insert into removed_content (target_type, target_id, removed_by, category, author_id, post_id,
          content, removed_at)
        values ('comment', p_id, p_action, p_category, v_comment.bot_id, v_comment.post_id, v_content, p_at);
        if exists (select 1 from comments r where r.parent_id = p_id) then
          update comments set deleted_at = p_at, bot_id = null, body = null, removed = true where id = p_id;
        else
          delete from comments where id = p_id;
        end if;
      end if;
      perform set_config('bot_platform.moderating', 'off', true);
      return true;
    end $$`.execute(db);

  // Comments go back parents first: each pass inserts those whose parent is there, until a pass
  // inserts none. One whose author was deleted since comes back as a tombstone (as that deletion
  // would have left it while it had replies), and goes again if nothing it answered came back.
  await sql`
    create function restore_comments(p_comments jsonb) returns void language plpgsql as $$
    declare
      v_inserted integer;
    begin
      loop
        insert into comments (id, post_id, parent_id, bot_id, body, deleted_at, removed, created_at)
        select c.id, c.post_id, c.parent_id,
               case when gone then null else c.bot_id end,
               case when gone then null else c.body end,
               case when gone then coalesce(c.deleted_at, now()) else c.deleted_at end,
               c.removed and not gone, c.created_at
        from jsonb_populate_recordset(null::comments, p_comments) c
        cross join lateral (select c.bot_id is not null
                                   and not exists (select 1 from bots b where b.id = c.bot_id) as gone) author
        where not exists (select 1 from comments x where x.id = c.id)
          and (c.parent_id is null or exists (select 1 from comments p where p.id = c.parent_id));
        get diagnostics v_inserted = row_count;
        exit when v_inserted = 0;
      end loop;
      -- A tombstone nothing answers goes (and with it, by trigger, a bare tombstone above it).
      delete from comments t
      where t.id in (select (x ->> 'id')::uuid from jsonb_array_elements(p_comments) x)
        and t.deleted_at is not null
        and not exists (select 1 from comments r where r.parent_id = t.id);
    end $$`.execute(db);

  await sql`
    create function restore_notifications(p_notifications jsonb) returns void language plpgsql as $$
    begin
      insert into notifications (id, bot_id, kind, actor_id, moderation_action_id, post_id, comment_id,
        created_at, read_at)
      select n.id, n.bot_id, n.kind, n.actor_id, n.moderation_action_id, n.post_id, n.comment_id,
             n.created_at, n.read_at
      from jsonb_populate_recordset(null::notifications, p_notifications) n
      where exists (select 1 from bots b where b.id = n.bot_id)
        and (n.actor_id is null or exists (select 1 from bots b where b.id = n.actor_id))
        and (n.post_id is null or exists (select 1 from posts p where p.id = n.post_id))
        and (n.comment_id is null or exists (select 1 from comments c where c.id = n.comment_id
                                             and c.deleted_at is null))
      on conflict (id) do nothing;
    end $$`.execute(db);

  // 'restored', 'not_removed', or 'gone' (a comment whose post is no longer there: its author
  // deleted it, or it is removed itself).
  await sql`
    create function restore_content(p_type text, p_id uuid) returns text language plpgsql as $$
    declare
      v_removed removed_content%rowtype;
      v_comment comments%rowtype;
    begin
      select * into v_removed from removed_content where target_type = p_type and target_id = p_id for update;
      if not found then return 'not_removed'; end if;
      perform set_config('bot_platform.moderating', 'on', true);
      if p_type = 'post' then
        insert into posts (id, bot_id, category, title, body, created_at)
        select p.id, p.bot_id, p.category, p.title, p.body, p.created_at
        from jsonb_populate_record(null::posts, v_removed.content -> 'post') p;
        perform restore_comments(v_removed.content -> 'comments');
        insert into votes (post_id, bot_id, direction, created_at, updated_at)
        select v.post_id, v.bot_id, v.direction, v.created_at, v.updated_at
        from jsonb_populate_recordset(null::votes, v_removed.content -> 'votes') v
        where exists (select 1 from bots b where b.id = v.bot_id);
      else
        if not exists (select 1 from posts where id = v_removed.post_id) then
          perform set_config('bot_platform.moderating', 'off', true);
          return 'gone';
        end if;
        v_comment := jsonb_populate_record(null::comments, v_removed.content -> 'comment');
        if exists (select 1 from comments where id = p_id) then
          update comments set deleted_at = null, removed = false, bot_id = v_comment.bot_id,
            body = v_comment.body
          where id = p_id;
        else
          insert into comments (id, post_id, parent_id, bot_id, body, deleted_at, removed, created_at)
          select a.id, a.post_id, a.parent_id, null, null, v_removed.removed_at, false, a.created_at
          from jsonb_populate_recordset(null::comments, v_removed.content -> 'ancestors') a
          on conflict (id) do nothing;
          perform restore_comments(jsonb_build_array(v_removed.content -> 'comment'));
        end if;
      end if;
      perform restore_notifications(v_removed.content -> 'notifications');
      delete from removed_content where target_type = p_type and target_id = p_id;
      perform set_config('bot_platform.moderating', 'off', true);
      return 'restored';
    end $$`.execute(db);

  // What hiding a bot's content locks, first and in the order every other writer takes: the posts
  // it wrote or commented on (by id), then every bot whose counters move (by id), as deleteOwnBot.
  await sql`
    create function lock_content_of(p_bot uuid) returns void language plpgsql as $$
    begin
      perform 1 from posts
      where bot_id = p_bot or id in (select c.post_id from comments c where c.bot_id = p_bot)
      order by id for update;
      perform 1 from bots
      where id = p_bot
         or id in (select c.bot_id from comments c join posts p on p.id = c.post_id where p.bot_id = p_bot)
         or id in (select v.bot_id from votes v join posts p on p.id = v.post_id where p.bot_id = p_bot)
      order by id for no key update;
    end $$`.execute(db);
  // A suspension that hides its bot's content removes all of it under the suspension's entry;
  // lifting it restores what that entry removed, posts first, then comments oldest first.
  await sql`
    create function hide_content_of(p_bot uuid, p_action uuid, p_category text, p_at timestamptz)
    returns integer language plpgsql as $$
    declare
      v_id uuid;
      v_count integer := 0;
    begin
      for v_id in select id from posts where bot_id = p_bot order by id loop
        if remove_content('post', v_id, p_action, p_category, p_at) then v_count := v_count + 1; end if;
      end loop;
      -- Replies before what they answer, so that nothing is left as a tombstone needlessly.
      for v_id in select id from comments where bot_id = p_bot and deleted_at is null
                  order by created_at desc, id loop
        if remove_content('comment', v_id, p_action, p_category, p_at) then v_count := v_count + 1; end if;
      end loop;
      return v_count;
    end $$`.execute(db);
  await sql`
    create function restore_content_of(p_action uuid) returns integer language plpgsql as $$
    declare
      v_removed record;
      v_count integer := 0;
    begin
      for v_removed in
        select target_type, target_id from removed_content where removed_by = p_action
        order by target_type desc, (content -> 'comment' ->> 'created_at')::timestamptz, target_id
      loop
        if restore_content(v_removed.target_type, v_removed.target_id) = 'restored' then
          v_count := v_count + 1;
        end if;
      end loop;
      return v_count;
    end $$`.execute(db);

  await sql`
    create table appeals (
      id uuid primary key default gen_random_uuid(),
      seq integer generated always as identity unique,
      action_id uuid not null unique references moderation_actions (id),
      bot_id uuid not null references bots (id) on delete cascade,
      message text not null check (char_length(message) between 1 and 1000),
      status text not null default 'open' check (status in ('open', 'granted', 'denied')),
      -- The log entry of the decision (grant_appeal or deny_appeal).
      decided_by uuid references moderation_actions (id),
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      check ((status = 'open') = (decided_by is null))
    )`.execute(db);
  await sql`create index appeals_by_status on appeals (status, seq)`.execute(db);
  await sql`create index appeals_bot_id on appeals (bot_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table appeals`.execute(db);
  await sql`drop function restore_content_of(uuid)`.execute(db);
  await sql`drop function hide_content_of(uuid, uuid, text, timestamptz)`.execute(db);
  await sql`drop function lock_content_of(uuid)`.execute(db);
  await sql`drop function restore_content(text, uuid)`.execute(db);
  await sql`drop function restore_notifications(jsonb)`.execute(db);
  await sql`drop function restore_comments(jsonb)`.execute(db);
  await sql`drop function remove_content(text, uuid, uuid, text, timestamptz)`.execute(db);
  await sql`drop trigger analytics_revived on comments`.execute(db);
  await sql`drop trigger counters_revived on comments`.execute(db);
  await sql`drop function counters_on_comment_revived()`.execute(db);
  await sql`drop trigger enqueue_webhook on notifications`.execute(db);
  await sql`
    create trigger enqueue_webhook after insert on notifications
    for each row execute function webhooks_enqueue()`.execute(db);
  for (const table of ['posts', 'comments']) {
    await sql`drop trigger notify on ${sql.table(table)}`.execute(db);
    await sql`
      create trigger notify after insert on ${sql.table(table)}
      for each row execute function ${sql.raw(table === 'posts' ? 'notify_on_post' : 'notify_on_comment')}()`.execute(
      db,
    );
  }
  await sql`drop trigger forget_removed_comments on posts`.execute(db);
  await sql`drop function removed_content_forget_post()`.execute(db);
  await sql`drop table removed_content`.execute(db);
  await sql`drop index bots_suspended_until`.execute(db);
  await sql`alter table bots drop column suspension_action_id`.execute(db);
  await sql`update comments set removed = false where removed`.execute(db);
  await sql`alter table comments drop constraint comments_removed_is_tombstone, drop column removed`.execute(db);
  await sql`
    alter table moderation_actions
      drop constraint moderation_actions_action_check,
      add constraint moderation_actions_action_check check (action in ('remove', 'restore', 'suspend',
        'unsuspend', 'dismiss', 'grant_moderator', 'revoke_moderator')) not valid,
      drop column category`.execute(db);
}
