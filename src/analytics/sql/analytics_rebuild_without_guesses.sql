-- analytics_rebuild_without_creators(), and the creators' total.
CREATE OR REPLACE FUNCTION public.analytics_rebuild_without_guesses()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      lock table creators in share mode;
      perform analytics_rebuild_without_creators();
      insert into analytics_totals as t (shard, creators)
      select 0, count(*) from creators
      on conflict (shard) do update set creators = excluded.creators;
    end $function$;
