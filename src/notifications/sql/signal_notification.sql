-- Tells every instance that a bot with a stream open has a new notification (NOTIFY, sent at commit).
CREATE OR REPLACE FUNCTION public.signal_notification()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if exists (select 1 from event_stream_slots where holder = 'bot:' || new.bot_id) then
        perform pg_notify('bot_platform_events', 'notification ' || new.bot_id || ' ' || new.seq);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER signal_notification AFTER INSERT ON public.notifications FOR EACH ROW EXECUTE FUNCTION signal_notification();
