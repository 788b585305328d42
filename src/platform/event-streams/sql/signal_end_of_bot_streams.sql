-- A bot suspended or deleted ends its streams on every instance (NOTIFY).
CREATE OR REPLACE FUNCTION public.signal_end_of_bot_streams()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      perform pg_notify('bot_platform_events', 'end ' || coalesce(new.id, old.id));
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER end_streams_on_delete AFTER DELETE ON public.bots FOR EACH ROW EXECUTE FUNCTION signal_end_of_bot_streams();

CREATE OR REPLACE TRIGGER end_streams_on_suspension AFTER UPDATE OF suspended_at ON public.bots FOR EACH ROW WHEN (((new.suspended_at IS NOT NULL) AND (new.suspended_at IS DISTINCT FROM old.suspended_at))) EXECUTE FUNCTION signal_end_of_bot_streams();
