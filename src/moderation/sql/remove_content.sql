-- Removes one post or comment by a moderation action, kept aside to be restored.
CREATE OR REPLACE FUNCTION public.remove_content(p_type text, p_id uuid, p_action uuid, p_category text, p_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
          update comments set deleted_at = p_at, bot_id = null, body = null, labels = '[]', removed = true where id = p_id;
        else
          delete from comments where id = p_id;
        end if;
      end if;
      perform set_config('bot_platform.moderating', 'off', true);
      return true;
    end $function$;
