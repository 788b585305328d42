-- Rebuilds every analytics count from the tables themselves (a truncate does): the counts with tombstoned comments, less those.
CREATE OR REPLACE FUNCTION public.analytics_rebuild()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    declare
      v_day record;
    begin
      perform analytics_rebuild_with_tombstones();
      for v_day in
        select (created_at at time zone 'UTC')::date as day, count(*)::integer as tombstones
        from comments where deleted_at is not null group by 1
      loop
        perform analytics_count(0::smallint, v_day.day, 0, 0, -v_day.tombstones, 0, 0);
      end loop;
    end $function$;
