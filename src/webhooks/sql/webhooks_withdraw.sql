-- Notifications deleted withdraw their deliveries not yet sent (failed, 'withdrawn').
CREATE OR REPLACE FUNCTION public.webhooks_withdraw()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update webhook_deliveries d
      set state = 'failed', next_attempt_at = null, leased_until = null, last_error = 'withdrawn: its notification was deleted before it could be delivered'
      from gone
      where d.notification_id = gone.id and d.state = 'pending';
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER withdraw_webhook_deliveries AFTER DELETE ON public.notifications REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION webhooks_withdraw();
