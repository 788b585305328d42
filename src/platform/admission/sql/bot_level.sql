-- A bot's trust level as its limits read it: 0 while on probation, 1 for everyone while trust levels are off, else the level last computed (trust_standing()).
CREATE OR REPLACE FUNCTION public.bot_level(p_bot bots, p_probation_hours integer, p_trust boolean, p_now timestamp with time zone)
 RETURNS smallint
 LANGUAGE sql
 STABLE
AS $function$
      select (case when probation_until(p_bot, p_probation_hours, p_now) is not null then 0
                   when not p_trust then 1
                   else p_bot.trust_level end)::smallint
    $function$;
