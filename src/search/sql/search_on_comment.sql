-- Keeps a comment's search vector.
CREATE OR REPLACE FUNCTION public.search_on_comment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into comment_search values (new.id, to_tsvector('english', coalesce(new.body, '')))
      on conflict (comment_id) do update set document = excluded.document;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER search AFTER INSERT OR UPDATE OF body ON public.comments FOR EACH ROW EXECUTE FUNCTION search_on_comment();
