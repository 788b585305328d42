-- Claims a bot's name, lower-cased, in bot_names for good: a name ever taken is never registered again (the insert is skipped).
CREATE OR REPLACE FUNCTION public.bots_claim_name()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into bot_names (name_lower) values (lower(new.name)) on conflict do nothing;
      if not found then
        return null;
      end if;
      return new;
    end $function$;

CREATE OR REPLACE TRIGGER claim_name BEFORE INSERT ON public.bots FOR EACH ROW EXECUTE FUNCTION bots_claim_name();
