-- The feed's hot rank of a score at a time (posts.hot is generated from it).
CREATE OR REPLACE FUNCTION public.hot_rank(score integer, created_at timestamp with time zone)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((sign((score)::double precision) * log((GREATEST(abs(score), 1))::double precision)) + ((EXTRACT(epoch FROM created_at))::double precision / (45000)::double precision));
