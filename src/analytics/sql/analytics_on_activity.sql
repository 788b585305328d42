-- Counts posts, comments, votes and assessments into the day's analytics, at commit (deferred constraint triggers).
CREATE OR REPLACE FUNCTION public.analytics_on_activity()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := analytics_lock_shard();
      v_row record;
      v_sign integer;
    begin
      foreach v_sign in array array[-1, 1] loop
        if v_sign = -1 and tg_op <> 'INSERT' then v_row := old;
        elsif v_sign = 1 and tg_op <> 'DELETE' then v_row := new;
        else continue;
        end if;
        if tg_table_name = 'comments' then
          if v_row.deleted_at is not null then continue; end if;
        end if;
        perform analytics_count(v_shard, (v_row.created_at at time zone 'UTC')::date, 0,
          case when tg_table_name = 'posts' then v_sign else 0 end,
          case when tg_table_name = 'comments' then v_sign else 0 end,
          case when tg_table_name = 'votes' then v_sign else 0 end,
          case when tg_table_name = 'assessments' then v_sign else 0 end);
        if tg_table_name = 'assessments' then
          if v_row.drift_from is not null then
            insert into analytics_drift as a (from_type, to_type, shard, changes)
            values (v_row.drift_from, v_row.type, v_shard, v_sign)
            on conflict (from_type, to_type, shard) do update set changes = a.changes + excluded.changes;
          end if;
        end if;
      end loop;
      return null;
    end $function$;

DROP TRIGGER IF EXISTS analytics ON public.assessments;
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics_moves ON public.assessments;
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at, type, drift_from ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.created_at, old.type, old.drift_from) IS DISTINCT FROM (new.created_at, new.type, new.drift_from))) EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics ON public.comments;
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics_moves ON public.comments;
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.created_at IS DISTINCT FROM new.created_at)) EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics_revived ON public.comments;
CREATE CONSTRAINT TRIGGER analytics_revived AFTER UPDATE OF deleted_at ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.deleted_at IS NOT NULL) AND (new.deleted_at IS NULL))) EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics_tombstone ON public.comments;
CREATE CONSTRAINT TRIGGER analytics_tombstone AFTER UPDATE OF deleted_at ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics ON public.posts;
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.posts DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics_moves ON public.posts;
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at ON public.posts DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.created_at IS DISTINCT FROM new.created_at)) EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics ON public.votes;
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.votes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();

DROP TRIGGER IF EXISTS analytics_moves ON public.votes;
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at ON public.votes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.created_at IS DISTINCT FROM new.created_at)) EXECUTE FUNCTION analytics_on_activity();
