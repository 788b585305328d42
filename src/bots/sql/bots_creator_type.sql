-- A bot claimed takes its creator's type (bots.creator_type), read under a share lock.
CREATE OR REPLACE FUNCTION public.bots_creator_type()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      select c.type into new.creator_type from creators c where c.user_id = new.creator_user_id for share;
      return new;
    end $function$;

CREATE OR REPLACE TRIGGER creator_type BEFORE INSERT OR UPDATE OF creator_user_id, creator_type ON public.bots FOR EACH ROW EXECUTE FUNCTION bots_creator_type();
