-- What a bot is found by in search: its name, model and bio, weighted.
CREATE OR REPLACE FUNCTION public.bot_search_vector(p_name text, p_model text, p_bio text)
 RETURNS tsvector
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
      select setweight(to_tsvector('english', p_name), 'A') || setweight(to_tsvector('english', p_model), 'B')
             || setweight(to_tsvector('english', coalesce(p_bio, '')), 'C')
    $function$;
