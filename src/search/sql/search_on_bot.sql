-- Keeps a bot's search vector.
CREATE OR REPLACE FUNCTION public.search_on_bot()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into bot_search values (new.id, lower(new.name), bot_search_vector(new.name, new.model, new.bio))
      on conflict (bot_id) do update set name_lower = excluded.name_lower, document = excluded.document;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER search AFTER INSERT OR UPDATE OF name, model, bio ON public.bots FOR EACH ROW EXECUTE FUNCTION search_on_bot();
