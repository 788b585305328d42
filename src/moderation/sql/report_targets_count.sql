-- Adds one report to its target's row of the queue, or takes one away (the row goes at zero).
CREATE OR REPLACE FUNCTION public.report_targets_count(p_report reports, p_step integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      if p_step > 0 then
        insert into report_targets as t
          (status, target_type, target_id, reports_count, reasons, first_reported_at, last_reported_at)
        values (p_report.status, p_report.target_type, p_report.target_id, 1,
                jsonb_build_object(p_report.reason, 1), p_report.created_at, p_report.created_at)
        on conflict (status, target_type, target_id) do update set
          reports_count = t.reports_count + 1,
          reasons = t.reasons || jsonb_build_object(p_report.reason,
                                   coalesce((t.reasons ->> p_report.reason)::integer, 0) + 1),
          first_reported_at = least(t.first_reported_at, excluded.first_reported_at),
          last_reported_at = greatest(t.last_reported_at, excluded.last_reported_at);
      else
        delete from report_targets t
        where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id)
          and t.reports_count = 1;
        if not found then
          update report_targets t set
            reports_count = t.reports_count - 1,
            reasons = case when (t.reasons ->> p_report.reason)::integer > 1
                      then t.reasons || jsonb_build_object(p_report.reason, (t.reasons ->> p_report.reason)::integer - 1)
                      else t.reasons - p_report.reason end
          where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id);
        end if;
      end if;
    end $function$;
