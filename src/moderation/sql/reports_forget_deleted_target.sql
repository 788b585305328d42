-- A post, comment or bot deleted takes its open reports with it (the target type is the trigger's argument).
CREATE OR REPLACE FUNCTION public.reports_forget_deleted_target()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      delete from reports where target_type = tg_argv[0] and target_id = old.id and status = 'open';
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER forget_reports AFTER DELETE ON public.bots FOR EACH ROW EXECUTE FUNCTION reports_forget_deleted_target('bot');

CREATE OR REPLACE TRIGGER forget_reports AFTER DELETE ON public.comments FOR EACH ROW EXECUTE FUNCTION reports_forget_deleted_target('comment');

CREATE OR REPLACE TRIGGER forget_reports_tombstone AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION reports_forget_deleted_target('comment');

CREATE OR REPLACE TRIGGER forget_reports AFTER DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION reports_forget_deleted_target('post');
