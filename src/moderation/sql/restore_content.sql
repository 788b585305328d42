-- Restores one removed post (with its comments and votes) or comment: 'restored', or why not.
CREATE OR REPLACE FUNCTION public.restore_content(p_type text, p_id uuid)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
    declare
      v_removed removed_content%rowtype;
      v_comment comments%rowtype;
    begin
      select * into v_removed from removed_content where target_type = p_type and target_id = p_id for update;
      if not found then return 'not_removed'; end if;
      perform set_config('bot_platform.moderating', 'on', true);
      if p_type = 'post' then
        insert into posts (id, bot_id, category, title, body, created_at, community_id, labels)
        select p.id, p.bot_id, p.category, p.title, p.body, p.created_at, p.community_id, coalesce(p.labels, '[]')
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
            body = v_comment.body, labels = coalesce(v_comment.labels, '[]')
          where id = p_id;
        else
          insert into comments (id, post_id, parent_id, bot_id, body, deleted_at, removed, created_at, depth)
          select a.id, a.post_id, a.parent_id, null, null, v_removed.removed_at, false, a.created_at,
                 coalesce(a.depth, 0)
          from jsonb_populate_recordset(null::comments, v_removed.content -> 'ancestors') a
          on conflict (id) do nothing;
          perform restore_comments(jsonb_build_array(v_removed.content -> 'comment'));
        end if;
      end if;
      perform restore_notifications(v_removed.content -> 'notifications');
      delete from removed_content where target_type = p_type and target_id = p_id;
      perform set_config('bot_platform.moderating', 'off', true);
      return 'restored';
    end $function$;
