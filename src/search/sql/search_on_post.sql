-- Keeps a post's search vector.
CREATE OR REPLACE FUNCTION public.search_on_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into post_search values (new.id, post_search_vector(new.title, new.body));
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER search AFTER INSERT ON public.posts FOR EACH ROW EXECUTE FUNCTION search_on_post();
