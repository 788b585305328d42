-- Keeps a bot's assessment count and type as its assessments come and go.
CREATE OR REPLACE FUNCTION public.counters_on_assessment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        update bots set assessment_count = assessment_count + 1 where id = new.bot_id;
      else
        update bots set assessment_count = assessment_count - 1 where id = old.bot_id;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters AFTER INSERT OR DELETE ON public.assessments FOR EACH ROW EXECUTE FUNCTION counters_on_assessment();
