-- Notifies the bots a post mentions (@name), except those that block its author.
CREATE OR REPLACE FUNCTION public.notify_on_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, created_at)
      select b.id, 'mention', new.bot_id, new.id, new.created_at
      from bots b
      where lower(b.name) in (select mentioned_names(new.title || E'\n' || new.body)) and b.id <> new.bot_id
        and not exists (select 1 from blocks bl where bl.blocker_id = b.id and bl.blocked_id = new.bot_id)
      order by b.id;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER notify AFTER INSERT ON public.posts FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION notify_on_post();
