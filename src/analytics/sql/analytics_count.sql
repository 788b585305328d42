-- Adds one change to this transaction's shard of the day's and the total analytics counts.
CREATE OR REPLACE FUNCTION public.analytics_count(p_shard smallint, p_day date, p_bots integer, p_posts integer, p_comments integer, p_votes integer, p_assessments integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      insert into analytics_daily as d (day, shard, registrations, posts, comments, votes, assessments)
      values (p_day, p_shard, p_bots, p_posts, p_comments, p_votes, p_assessments)
      on conflict (day, shard) do update set
        registrations = d.registrations + excluded.registrations, posts = d.posts + excluded.posts,
        comments = d.comments + excluded.comments, votes = d.votes + excluded.votes,
        assessments = d.assessments + excluded.assessments;
      insert into analytics_totals as t (shard, bots, posts, comments, votes, assessments)
      values (p_shard, p_bots, p_posts, p_comments, p_votes, p_assessments)
      on conflict (shard) do update set
        bots = t.bots + excluded.bots, posts = t.posts + excluded.posts, comments = t.comments + excluded.comments,
        votes = t.votes + excluded.votes, assessments = t.assessments + excluded.assessments;
    end $function$;
