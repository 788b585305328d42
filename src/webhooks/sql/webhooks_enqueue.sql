-- A notification enqueues a delivery for each of its bot's webhooks that wants its event.
CREATE OR REPLACE FUNCTION public.webhooks_enqueue()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into webhook_deliveries (bot_id, notification_id, event_type, next_attempt_at)
      select w.bot_id, new.id, 'notification.' || new.kind, now()
      from webhooks w
      where w.bot_id = new.bot_id and w.disabled_at is null and new.kind = any (w.events);
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER enqueue_webhook AFTER INSERT ON public.notifications FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION webhooks_enqueue();
