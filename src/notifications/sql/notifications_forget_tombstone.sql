-- A comment tombstoned takes its notifications with it.
CREATE OR REPLACE FUNCTION public.notifications_forget_tombstone()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      delete from notifications where comment_id = new.id;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER notifications_tombstone AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION notifications_forget_tombstone();
