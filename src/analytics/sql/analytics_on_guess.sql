-- Counts creators' guesses of their bots' types (right or wrong), at commit.
CREATE OR REPLACE FUNCTION public.analytics_on_guess()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_old_creator text;
      v_old_guess text;
      v_new_creator text;
      v_new_guess text;
    begin
      if tg_op <> 'INSERT' then v_old_creator := old.creator_type; v_old_guess := old.creator_guess_type; end if;
      if tg_op <> 'DELETE' then v_new_creator := new.creator_type; v_new_guess := new.creator_guess_type; end if;
      if (v_old_creator is null or v_old_guess is null) and (v_new_creator is null or v_new_guess is null) then return null; end if;
      perform analytics_lock_shard();
      perform pg_advisory_xact_lock(20261121, 16);
      insert into analytics_guesses as a (creator_type, guess_type, bots)
      select creator_type, guess_type, sum(delta)
      from (values (v_old_creator, v_old_guess, -1), (v_new_creator, v_new_guess, 1)) as moves (creator_type, guess_type, delta)
      where creator_type is not null and guess_type is not null
      group by creator_type, guess_type having sum(delta) <> 0
      on conflict (creator_type, guess_type) do update set bots = a.bots + excluded.bots;
      return null;
    end $function$;

DROP TRIGGER IF EXISTS analytics_guesses ON public.bots;
CREATE CONSTRAINT TRIGGER analytics_guesses AFTER INSERT OR DELETE ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_guess();

DROP TRIGGER IF EXISTS analytics_guesses_moves ON public.bots;
CREATE CONSTRAINT TRIGGER analytics_guesses_moves AFTER UPDATE OF creator_user_id, creator_type, creator_guess_type ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.creator_type IS DISTINCT FROM new.creator_type) OR (old.creator_guess_type IS DISTINCT FROM new.creator_guess_type))) EXECUTE FUNCTION analytics_on_guess();
