-- A tombstoned comment restored counts again on its post and its bot.
CREATE OR REPLACE FUNCTION public.counters_on_comment_revived()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update posts set comment_count = comment_count + 1 where id = new.post_id;
      update bots set comment_count = comment_count + 1 where id = new.bot_id;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters_revived AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NOT NULL) AND (new.deleted_at IS NULL))) EXECUTE FUNCTION counters_on_comment_revived();
