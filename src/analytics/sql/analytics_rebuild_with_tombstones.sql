-- analytics_rebuild()'s counts with tombstoned comments included, and the creators' types, guesses and ratings.
CREATE OR REPLACE FUNCTION public.analytics_rebuild_with_tombstones()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      perform analytics_rebuild_without_guesses();
      delete from analytics_creator_types;
      delete from analytics_guesses;
      delete from analytics_ratings;
      insert into analytics_creator_types (type, creators)
      select type, count(*) from creators where type is not null group by type;
      insert into analytics_guesses (creator_type, guess_type, bots)
      select creator_type, creator_guess_type, count(*) from bots
      where creator_type is not null and creator_guess_type is not null group by creator_type, creator_guess_type;
      insert into analytics_ratings (type, shard, ratings, rating_sum)
      select type, 0, count(*), sum(accuracy_rating) from assessments where accuracy_rating is not null group by type;
    end $function$;
