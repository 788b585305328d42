-- Counts the accuracy ratings bots give their assessments, by type, at commit.
CREATE OR REPLACE FUNCTION public.analytics_on_rating()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint;
      v_old_type text;
      v_old_rating integer;
      v_new_type text;
      v_new_rating integer;
    begin
      if tg_op <> 'INSERT' then v_old_type := old.type; v_old_rating := old.accuracy_rating; end if;
      if tg_op <> 'DELETE' then v_new_type := new.type; v_new_rating := new.accuracy_rating; end if;
      if v_old_rating is null and v_new_rating is null then return null; end if;
      v_shard := analytics_lock_shard();
      insert into analytics_ratings as a (type, shard, ratings, rating_sum)
      select type, v_shard, sum(delta), sum(delta * rating)
      from (values (v_old_type, v_old_rating, -1), (v_new_type, v_new_rating, 1)) as moves (type, rating, delta)
      where rating is not null group by type having sum(delta) <> 0 or sum(delta * rating) <> 0
      on conflict (type, shard) do update set ratings = a.ratings + excluded.ratings, rating_sum = a.rating_sum + excluded.rating_sum;
      return null;
    end $function$;

DROP TRIGGER IF EXISTS analytics_ratings ON public.assessments;
CREATE CONSTRAINT TRIGGER analytics_ratings AFTER INSERT OR DELETE ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_rating();

DROP TRIGGER IF EXISTS analytics_ratings_moves ON public.assessments;
CREATE CONSTRAINT TRIGGER analytics_ratings_moves AFTER UPDATE OF type, accuracy_rating ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.type IS DISTINCT FROM new.type) OR (old.accuracy_rating IS DISTINCT FROM new.accuracy_rating))) EXECUTE FUNCTION analytics_on_rating();
