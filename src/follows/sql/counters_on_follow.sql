-- Keeps the follower and following counts of both bots.
CREATE OR REPLACE FUNCTION public.counters_on_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_row follows%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      -- In id order, as every writer takes bot rows (no deadlock with a vote or a deletion).
      update bots set
        follower_count = follower_count + case when id = v_row.followee_id then v_step else 0 end,
        following_count = following_count + case when id = v_row.follower_id then v_step else 0 end
      where id in (v_row.follower_id, v_row.followee_id);
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters AFTER INSERT OR DELETE ON public.follows FOR EACH ROW EXECUTE FUNCTION counters_on_follow();
