-- A bot deleted takes its side of every conversation with it (its member row, its messages): the
-- other bot can no longer send there, and a request it made or was sent is closed undecided.
CREATE OR REPLACE FUNCTION public.close_conversation_of_deleted_bot()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update conversations
        set status = 'closed', decided_at = coalesce(decided_at, date_trunc('milliseconds', now()))
        where id = old.conversation_id and status in ('requested', 'accepted');
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER close_conversation AFTER DELETE ON public.conversation_members FOR EACH ROW EXECUTE FUNCTION close_conversation_of_deleted_bot();
