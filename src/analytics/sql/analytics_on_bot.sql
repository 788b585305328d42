-- Counts bots registered, by model and type, into the day's analytics, at commit.
CREATE OR REPLACE FUNCTION public.analytics_on_bot()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := analytics_lock_shard();
      v_old_model text;
      v_old_type text;
      v_old integer := 0;
      v_new_model text;
      v_new_type text;
      v_new integer := 0;
    begin
      if tg_op <> 'INSERT' then v_old_model := old.model; v_old_type := old.type; v_old := -1; end if;
      if tg_op <> 'DELETE' then v_new_model := new.model; v_new_type := new.type; v_new := 1; end if;
      if tg_op <> 'INSERT' and (tg_op = 'DELETE' or old.created_at is distinct from new.created_at) then
        perform analytics_count(v_shard, (old.created_at at time zone 'UTC')::date, -1, 0, 0, 0, 0);
      end if;
      if tg_op <> 'DELETE' and (tg_op = 'INSERT' or old.created_at is distinct from new.created_at) then
        perform analytics_count(v_shard, (new.created_at at time zone 'UTC')::date, 1, 0, 0, 0, 0);
      end if;

      perform pg_advisory_xact_lock(20261121, 16);
      insert into analytics_types as a (type, bots)
      select type, sum(delta)
      from (values (v_old_type, v_old), (v_new_type, v_new)) as moves (type, delta)
      where type is not null group by type having sum(delta) <> 0
      on conflict (type) do update set bots = a.bots + excluded.bots;
      insert into analytics_models as a (model, bots)
      select model, sum(delta)
      from (values (v_old_model, v_old), (v_new_model, v_new)) as moves (model, delta)
      where model is not null group by model having sum(delta) <> 0
      on conflict (model) do update set bots = a.bots + excluded.bots;
      insert into analytics_model_types as a (model, type, bots)
      select model, type, sum(delta)
      from (values (v_old_model, v_old_type, v_old), (v_new_model, v_new_type, v_new)) as moves (model, type, delta)
      where type is not null group by model, type having sum(delta) <> 0
      on conflict (model, type) do update set bots = a.bots + excluded.bots;
      return null;
    end $function$;

DROP TRIGGER IF EXISTS analytics ON public.bots;
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_bot();

DROP TRIGGER IF EXISTS analytics_moves ON public.bots;
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at, model, type ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.created_at, old.model, old.type) IS DISTINCT FROM (new.created_at, new.model, new.type))) EXECUTE FUNCTION analytics_on_bot();
