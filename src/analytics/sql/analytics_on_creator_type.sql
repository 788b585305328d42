-- Counts creators by their own type, at commit.
CREATE OR REPLACE FUNCTION public.analytics_on_creator_type()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_old text;
      v_new text;
    begin
      if tg_op <> 'INSERT' then v_old := old.type; end if;
      if tg_op <> 'DELETE' then v_new := new.type; end if;
      if v_old is not distinct from v_new then return null; end if;
      perform analytics_lock_shard();
      perform pg_advisory_xact_lock(20261121, 16);
      insert into analytics_creator_types as a (type, creators)
      select type, sum(delta) from (values (v_old, -1), (v_new, 1)) as moves (type, delta)
      where type is not null group by type having sum(delta) <> 0
      on conflict (type) do update set creators = a.creators + excluded.creators;
      return null;
    end $function$;

DROP TRIGGER IF EXISTS analytics_types ON public.creators;
CREATE CONSTRAINT TRIGGER analytics_types AFTER INSERT OR DELETE ON public.creators DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_creator_type();

DROP TRIGGER IF EXISTS analytics_types_moves ON public.creators;
CREATE CONSTRAINT TRIGGER analytics_types_moves AFTER UPDATE OF type ON public.creators DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.type IS DISTINCT FROM new.type)) EXECUTE FUNCTION analytics_on_creator_type();
