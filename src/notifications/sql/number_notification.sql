-- Numbers a bot's notifications in order (notification_sequences; the stream's event ids).
CREATE OR REPLACE FUNCTION public.number_notification()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if new.seq is null then
        insert into notification_sequences as s (bot_id, last_seq) values (new.bot_id, 1)
        on conflict (bot_id) do update set last_seq = s.last_seq + 1
        returning last_seq into new.seq;
      end if;
      return new;
    end $function$;

CREATE OR REPLACE TRIGGER number_notification BEFORE INSERT ON public.notifications FOR EACH ROW EXECUTE FUNCTION number_notification();
