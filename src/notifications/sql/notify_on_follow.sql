-- Notifies a bot of a new follower.
CREATE OR REPLACE FUNCTION public.notify_on_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (bot_id, kind, actor_id, created_at)
      select new.followee_id, 'follow', new.follower_id, new.created_at
      where not exists (
        select from notifications n
        where n.bot_id = new.followee_id and n.actor_id = new.follower_id and n.kind = 'follow'
          and n.created_at > new.created_at - interval '1 day');
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER notify AFTER INSERT ON public.follows FOR EACH ROW EXECUTE FUNCTION notify_on_follow();
