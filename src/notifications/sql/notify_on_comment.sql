-- Notifies a post's author of a comment, a comment's author of a reply, and the bots it mentions.
CREATE OR REPLACE FUNCTION public.notify_on_comment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, comment_id, created_at)
      select distinct on (recipient) recipient, kind, new.bot_id, new.post_id, new.id, new.created_at
      from (
        select p.bot_id as recipient, 'comment' as kind, 1 as rank from posts p where p.id = new.post_id
        union all
        select c.bot_id, 'reply', 2 from comments c where c.id = new.parent_id
        union all
        select b.id, 'mention', 3 from bots b where lower(b.name) in (select mentioned_names(new.body))
      ) candidates
      where recipient is not null and recipient <> new.bot_id and not exists (select 1 from blocks bl where bl.blocker_id = recipient and bl.blocked_id = new.bot_id)
      order by recipient, rank;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER notify AFTER INSERT ON public.comments FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION notify_on_comment();
