-- Recomputes these bots' trust levels (trust_standing()), keeps since when each has been established, and tells each bot whose level changed (a `trust` notification): of the ones in p_probation_ended (a claim ended their probation, which counted as level 0), a change from 0 to the level they now have. Answers how many levels changed.
CREATE OR REPLACE FUNCTION public.recompute_trust(p_bot_ids uuid[], p_probation_hours integer, p_now timestamp with time zone, p_probation_ended uuid[] DEFAULT '{}'::uuid[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_changed integer;
    begin
      with standing as (
        select s.bot_id, s.level, b.trust_level as stored,
               case when s.bot_id = any (p_probation_ended) then 0 else b.trust_level end as before
        from trust_standing(p_bot_ids, p_probation_hours, p_now, false) s join bots b on b.id = s.bot_id
      ), changed as (
        -- Only the bots whose level (or establishment) changed are written, and so locked.
        update bots b set
            trust_level = s.level,
            established_at = case when s.level >= 2 then coalesce(b.established_at, coalesce(p_now, now())) end
          from standing s
          where b.id = s.bot_id
            and (b.trust_level <> s.level or (s.level >= 2) <> (b.established_at is not null))
          returning b.id
      ), told as (
        insert into notifications (bot_id, kind, created_at, detail)
        select s.bot_id, 'trust', date_trunc('milliseconds', coalesce(p_now, now())),
               jsonb_build_object('level', s.level, 'previous', s.before)
          from standing s
          where s.level <> s.before
      )
      select count(*) into v_changed from standing s where s.level <> s.before;
      return v_changed;
    end $function$;
