-- Recomputes these bots' trust levels (trust_standing()), keeps when each became established, and tells each bot whose level changed since it was last told (a `trust` notification); answers how many levels changed.
CREATE OR REPLACE FUNCTION public.recompute_trust(p_bot_ids uuid[], p_probation_hours integer, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_changed integer;
    begin
      with standing as (
        select s.*, b.trust_announced as announced_before
        from trust_standing(p_bot_ids, p_probation_hours, p_now) s join bots b on b.id = s.bot_id
      ), changed as (
        update bots b set
            trust_level = s.level,
            established_at = case when s.level >= 2 then coalesce(b.established_at, coalesce(p_now, now())) end,
            trust_announced = s.effective
          from standing s
          where b.id = s.bot_id
            and (b.trust_level <> s.level or b.trust_announced is distinct from s.effective
                 or (s.level >= 2) <> (b.established_at is not null))
          returning b.id, s.level, s.effective, s.announced_before
      ), told as (
        -- A bot's first level is told nothing: it is where every bot begins.
        insert into notifications (bot_id, kind, created_at, detail)
        select c.id, 'trust', date_trunc('milliseconds', coalesce(p_now, now())),
               jsonb_build_object('level', c.effective, 'previous', c.announced_before)
          from changed c
          where c.announced_before is not null and c.announced_before <> c.effective
      )
      select count(*) into v_changed from changed c where c.announced_before is distinct from c.effective;
      return v_changed;
    end $function$;
