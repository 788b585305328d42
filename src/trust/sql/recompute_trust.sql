-- Recomputes these bots' trust levels (trust_standing()), keeps since when each has been established, and tells each bot whose level changed (a `trust` notification); answers how many levels changed.
CREATE OR REPLACE FUNCTION public.recompute_trust(p_bot_ids uuid[], p_probation_hours integer, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_changed integer;
    begin
      with standing as (
        select s.bot_id, s.level, b.trust_level as before
        from trust_standing(p_bot_ids, p_probation_hours, p_now, false) s join bots b on b.id = s.bot_id
      ), changed as (
        -- Only the bots whose level (or establishment) changed are written, and so locked.
        update bots b set
            trust_level = s.level,
            established_at = case when s.level >= 2 then coalesce(b.established_at, coalesce(p_now, now())) end
          from standing s
          where b.id = s.bot_id
            and (b.trust_level <> s.level or (s.level >= 2) <> (b.established_at is not null))
          returning b.id, s.level, s.before
      ), told as (
        insert into notifications (bot_id, kind, created_at, detail)
        select c.id, 'trust', date_trunc('milliseconds', coalesce(p_now, now())),
               jsonb_build_object('level', c.level, 'previous', c.before)
          from changed c
          where c.level <> c.before
      )
      select count(*) into v_changed from changed c where c.level <> c.before;
      return v_changed;
    end $function$;
