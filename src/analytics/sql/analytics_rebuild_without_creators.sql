-- The daily counts, totals, types, drift and models, rebuilt from bots, posts, comments, votes and assessments.
CREATE OR REPLACE FUNCTION public.analytics_rebuild_without_creators()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      -- Children first, the order in which writers lock these tables.
      lock table votes, comments, assessments, posts, bots in share mode;
      -- DELETE, not TRUNCATE: this also runs inside a TRUNCATE statement (analytics_on_truncate).
      delete from analytics_totals;
      delete from analytics_daily;
      delete from analytics_types;
      delete from analytics_drift;
      delete from analytics_models;
      delete from analytics_model_types;
      insert into analytics_daily (day, shard, registrations, posts, comments, votes, assessments)
      select day, 0, sum(registrations), sum(posts), sum(comments), sum(votes), sum(assessments) from (
        select (created_at at time zone 'UTC')::date as day, count(*) as registrations, 0 as posts, 0 as comments, 0 as votes, 0 as assessments from bots group by 1
        union all select (created_at at time zone 'UTC')::date, 0, count(*), 0, 0, 0 from posts group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, count(*), 0, 0 from comments group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, 0, count(*), 0 from votes group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, 0, 0, count(*) from assessments group by 1
      ) per_table group by day;
      insert into analytics_totals (shard, bots, posts, comments, votes, assessments)
      select 0, coalesce(sum(registrations), 0), coalesce(sum(posts), 0), coalesce(sum(comments), 0),
             coalesce(sum(votes), 0), coalesce(sum(assessments), 0)
      from analytics_daily;
      insert into analytics_types (type, bots)
      select type, count(*) from bots where type is not null group by type;
      insert into analytics_drift (from_type, to_type, shard, changes)
      select drift_from, type, 0, count(*) from assessments where drift_from is not null group by drift_from, type;
      insert into analytics_models (model, bots) select model, count(*) from bots group by model;
      insert into analytics_model_types (model, type, bots)
      select model, type, count(*) from bots where type is not null group by model, type;
    end $function$;
