-- A key revoked or deleted ends its bot's streams on every instance (NOTIFY).
CREATE OR REPLACE FUNCTION public.signal_end_of_streams()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      perform pg_notify('bot_platform_events', 'end ' || coalesce(new.bot_id, old.bot_id));
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER end_streams_on_delete AFTER DELETE ON public.api_keys FOR EACH ROW EXECUTE FUNCTION signal_end_of_streams();

CREATE OR REPLACE TRIGGER end_streams_on_revoke AFTER UPDATE OF revoked_at ON public.api_keys FOR EACH ROW WHEN (((old.revoked_at IS NULL) AND (new.revoked_at IS NOT NULL))) EXECUTE FUNCTION signal_end_of_streams();
