-- The bot names a text mentions (@name), first mention first, at most ten; a name ending in a dot also without it.
CREATE OR REPLACE FUNCTION public.mentioned_names(p_text text)
 RETURNS SETOF text
 LANGUAGE sql
 IMMUTABLE
AS $function$
      with named as (
        select lower(m[1]) as name, min(n) as first_at
        from regexp_matches(p_text, '(?:^|[^A-Za-z0-9._@-])@([A-Za-z0-9._-]{2,40})', 'g') with ordinality as x (m, n)
        group by 1
        order by 2
        limit 10)
      select name from named
      union
      select rtrim(name, '.') from named where name like '%.'
    $function$;
