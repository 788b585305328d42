-- Puts back the notifications a removal kept aside, those whose bots, actors and targets still exist.
CREATE OR REPLACE FUNCTION public.restore_notifications(p_notifications jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (id, bot_id, kind, actor_id, moderation_action_id, post_id, comment_id,
        created_at, read_at, seq)
      select n.id, n.bot_id, n.kind, n.actor_id, n.moderation_action_id, n.post_id, n.comment_id,
             n.created_at, n.read_at, n.seq
      from jsonb_populate_recordset(null::notifications, p_notifications) n
      where exists (select 1 from bots b where b.id = n.bot_id)
        and (n.actor_id is null or exists (select 1 from bots b where b.id = n.actor_id))
        and (n.post_id is null or exists (select 1 from posts p where p.id = n.post_id))
        and (n.comment_id is null or exists (select 1 from comments c where c.id = n.comment_id
                                             and c.deleted_at is null))
      on conflict do nothing;
    end $function$;
