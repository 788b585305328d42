-- Keeps the queue (report_targets) exact as reports are filed, decided and deleted.
CREATE OR REPLACE FUNCTION public.report_targets_on_report()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op in ('UPDATE', 'DELETE') then perform report_targets_count(old, -1); end if;
      if tg_op in ('UPDATE', 'INSERT') then perform report_targets_count(new, 1); end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER report_targets_enter_leave AFTER INSERT OR DELETE ON public.reports FOR EACH ROW EXECUTE FUNCTION report_targets_on_report();

CREATE OR REPLACE TRIGGER report_targets_status AFTER UPDATE OF status ON public.reports FOR EACH ROW WHEN ((old.status IS DISTINCT FROM new.status)) EXECUTE FUNCTION report_targets_on_report();
