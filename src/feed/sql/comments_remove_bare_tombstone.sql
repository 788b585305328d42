-- A reply deleted takes its parent's tombstone with it when no other reply is left.
CREATE OR REPLACE FUNCTION public.comments_remove_bare_tombstone()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if old.parent_id is not null then
        delete from comments c
        where c.id = old.parent_id and c.deleted_at is not null
          and not exists (select 1 from comments r where r.parent_id = c.id);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER remove_bare_tombstone AFTER DELETE ON public.comments FOR EACH ROW EXECUTE FUNCTION comments_remove_bare_tombstone();
