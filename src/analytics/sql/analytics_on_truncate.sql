-- A truncated source table empties the analytics counts, which rebuild from what is left.
CREATE OR REPLACE FUNCTION public.analytics_on_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      perform analytics_rebuild();
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER analytics_truncate AFTER TRUNCATE ON public.assessments FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();

CREATE OR REPLACE TRIGGER analytics_truncate AFTER TRUNCATE ON public.bots FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();

CREATE OR REPLACE TRIGGER analytics_truncate AFTER TRUNCATE ON public.comments FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();

CREATE OR REPLACE TRIGGER analytics_truncate AFTER TRUNCATE ON public.creators FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();

CREATE OR REPLACE TRIGGER analytics_truncate AFTER TRUNCATE ON public.posts FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();

CREATE OR REPLACE TRIGGER analytics_truncate AFTER TRUNCATE ON public.votes FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
