-- When an unclaimed bot's probation ends (PROBATION_HOURS after registration), or null when it is not on probation.
CREATE OR REPLACE FUNCTION public.probation_until(p_bot bots, p_hours integer, p_now timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
      select case when p_hours > 0 and p_bot.creator_user_id is null
                   and p_bot.created_at + make_interval(hours => p_hours) > coalesce(p_now, now())
             then p_bot.created_at + make_interval(hours => p_hours) end
    $function$;
