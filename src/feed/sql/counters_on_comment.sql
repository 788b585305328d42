-- Keeps a post's comment count and a bot's comment count as comments come, go or are tombstoned.
CREATE OR REPLACE FUNCTION public.counters_on_comment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_row comments%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      if v_row.deleted_at is not null then return null; end if;
      update posts set comment_count = comment_count + v_step where id = v_row.post_id;
      update bots set comment_count = comment_count + v_step where id = v_row.bot_id;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters AFTER INSERT OR DELETE ON public.comments FOR EACH ROW EXECUTE FUNCTION counters_on_comment();

CREATE OR REPLACE TRIGGER counters_tombstone AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION counters_on_comment();
