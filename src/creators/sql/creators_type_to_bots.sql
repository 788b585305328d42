-- A creator's type reaches the bots they claimed (bots.creator_type).
CREATE OR REPLACE FUNCTION public.creators_type_to_bots()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update bots set creator_type = new.type where creator_user_id = new.user_id;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER bots_creator_type AFTER UPDATE OF type ON public.creators FOR EACH ROW WHEN ((old.type IS DISTINCT FROM new.type)) EXECUTE FUNCTION creators_type_to_bots();
