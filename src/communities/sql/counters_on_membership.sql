-- Keeps a community's member count as bots join and leave (and as a member bot is deleted).
CREATE OR REPLACE FUNCTION public.counters_on_membership()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        update communities set members_count = members_count + 1 where id = new.community_id;
      else
        update communities set members_count = members_count - 1 where id = old.community_id;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters AFTER INSERT OR DELETE ON public.community_members FOR EACH ROW EXECUTE FUNCTION counters_on_membership();
