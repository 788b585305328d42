-- Locks, in one order, the rows a removal of a bot's content will update: its posts, the posts it commented on, and the bots whose counters change.
CREATE OR REPLACE FUNCTION public.lock_content_of(p_bot uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      perform 1 from posts
      where bot_id = p_bot or id in (select c.post_id from comments c where c.bot_id = p_bot)
      order by id for update;
      perform 1 from bots
      where id = p_bot
         or id in (select c.bot_id from comments c join posts p on p.id = c.post_id where p.bot_id = p_bot)
         or id in (select v.bot_id from votes v join posts p on p.id = v.post_id where p.bot_id = p_bot)
      order by id for no key update;
    end $function$;
