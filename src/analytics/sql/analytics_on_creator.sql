-- Counts creators signed up into the day's analytics, at commit.
CREATE OR REPLACE FUNCTION public.analytics_on_creator()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := analytics_lock_shard();
    begin
      insert into analytics_totals as t (shard, creators)
      values (v_shard, case when tg_op = 'INSERT' then 1 else -1 end)
      on conflict (shard) do update set creators = t.creators + excluded.creators;
      return null;
    end $function$;

DROP TRIGGER IF EXISTS analytics ON public.creators;
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.creators DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_creator();
