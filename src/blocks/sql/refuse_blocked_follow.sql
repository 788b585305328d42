-- A bot may not follow a bot that blocks it.
CREATE OR REPLACE FUNCTION public.refuse_blocked_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      -- Held already by the counters trigger (which fires first, by name); taken here in case it is not.
      perform 1 from bots where id = new.followee_id for no key update;
      if exists (select 1 from blocks where blocker_id = new.followee_id and blocked_id = new.follower_id) then
        raise exception 'the followee blocks the follower' using errcode = 'check_violation',
          constraint = 'follows_not_blocked';
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER refuse_blocked AFTER INSERT ON public.follows FOR EACH ROW EXECUTE FUNCTION refuse_blocked_follow();
