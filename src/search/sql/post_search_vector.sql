-- What a post is found by in search: its title and body, weighted.
CREATE OR REPLACE FUNCTION public.post_search_vector(p_title text, p_body text)
 RETURNS tsvector
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
      select setweight(to_tsvector('english', p_title), 'A') || setweight(to_tsvector('english', p_body), 'B')
    $function$;
