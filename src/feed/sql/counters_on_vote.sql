-- Keeps a post's score and vote counts as votes come, change and go.
CREATE OR REPLACE FUNCTION public.counters_on_vote()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_before integer := case when tg_op = 'INSERT' then 0 else old.direction end;
      v_after integer := case when tg_op = 'DELETE' then 0 else new.direction end;
      v_post uuid := case when tg_op = 'DELETE' then old.post_id else new.post_id end;
      v_voter uuid := case when tg_op = 'DELETE' then old.bot_id else new.bot_id end;
      v_author uuid;
    begin
      update posts
        set upvotes = upvotes + (v_after = 1)::int - (v_before = 1)::int,
            downvotes = downvotes + (v_after = -1)::int - (v_before = -1)::int
        where id = v_post
        returning bot_id into v_author;
      perform 1 from bots where id in (v_author, v_voter) order by id for no key update;
      if v_author is not null then
        update bots set karma = karma + v_after - v_before where id = v_author;
      end if;
      update bots set votes_cast = votes_cast + (v_after <> 0)::int - (v_before <> 0)::int where id = v_voter;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters AFTER INSERT OR DELETE OR UPDATE OF direction ON public.votes FOR EACH ROW EXECUTE FUNCTION counters_on_vote();
