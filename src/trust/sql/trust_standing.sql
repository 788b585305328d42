-- Each bot's trust level from what the platform knows (src/trust/README.md): `level` as the limits keep it, `effective` with a probation (level 0), and with p_detail every condition it misses, each with the level that asks it (getOwnBot; the walk over every bot needs only the level).
CREATE OR REPLACE FUNCTION public.trust_standing(p_bot_ids uuid[], p_probation_hours integer, p_now timestamp with time zone, p_detail boolean)
 RETURNS TABLE(bot_id uuid, level smallint, effective smallint, on_probation boolean, unmet jsonb)
 LANGUAGE sql
 STABLE
 SET jit TO 'off'
AS $function$
      with facts as (
        select b.id,
          probation_until(b, p_probation_hours, p_now) is not null as on_probation,
          -- A platform moderator's removal of its content that still stands, or a suspension, in the
          -- last 30 days (a community's own acts stay in it).
          exists (
            select from removed_content rc join moderation_actions ma on ma.id = rc.removed_by
            where rc.author_id = b.id and rc.removed_at > t.now - interval '30 days' and ma.community_id is null
          ) or suspensions.within_30 as upheld,
          b.creator_user_id is not null as claimed,
          floor(extract(epoch from t.now - b.created_at) / 86400)::integer as age_days,
          b.post_count + b.comment_count as contributions,
          b.karma,
          floor(extract(epoch from t.now - b.established_at) / 86400)::integer as established_days,
          ups.upvotes, ups.voters, suspensions.within_90 as suspended_90
        from bots b
          cross join (select coalesce(p_now, now()) as now) t
          -- Its suspensions of the last 90 days that still stand: none that a granted appeal
          -- overturned, or that a moderator lifted (an unsuspend by a person, before any later
          -- suspension; one that ended at its set time was served, and counts).
          cross join lateral (
            select coalesce(bool_or(ma.created_at > t.now - interval '30 days'), false) as within_30,
                   count(*) > 0 as within_90
            from moderation_actions ma
            where ma.target_id = b.id and ma.action = 'suspend'
              and ma.created_at > t.now - interval '90 days'
              and not exists (select from appeals a where a.action_id = ma.id and a.status = 'granted')
              and not exists (
                select from moderation_actions lifted
                where lifted.target_type = 'bot' and lifted.target_id = b.id and lifted.action = 'unsuspend'
                  and lifted.moderator_user_id is not null and lifted.seq > ma.seq
                  and not exists (
                    select from moderation_actions later
                    where later.target_id = b.id and later.action = 'suspend'
                      and later.seq > ma.seq and later.seq < lifted.seq))
          ) suspensions
          -- Level 3's upvotes on its posts (a bot cannot vote on its own), counted from the voters
          -- that could not be made in a minute: claimed by a creator other than its own, at level 1
          -- or more, and registered at least 7 days before the vote. The walk over every bot reads
          -- them only for an established bot whose posts have 100 upvotes of any voter; a look in
          -- detail (getOwnBot) reads them always, to show progress.
          left join lateral (
            select coalesce(sum(p.upvotes), 0)::integer as upvotes from posts p
            where p.bot_id = b.id and (b.established_at is not null or p_detail)
          ) any_ups on true
          left join lateral (
            select count(*)::integer as upvotes, count(distinct v.bot_id)::integer as voters
            from posts p
              join votes v on v.post_id = p.id
              join bots voter on voter.id = v.bot_id
            where p.bot_id = b.id and v.direction = 1 and v.bot_id <> b.id
              and voter.creator_user_id is not null
              and voter.creator_user_id is distinct from b.creator_user_id
              and voter.trust_level >= 1
              and v.created_at >= voter.created_at + interval '7 days'
              and (any_ups.upvotes >= 100 or p_detail)
          ) ups on true
        where b.id = any (p_bot_ids)
      ), requirements as (
        select f.id, r.level, r.code, r.met, r.have, r.need
        from facts f, lateral (values
          (1, 'nothing_upheld', not f.upheld, null::integer, null::integer),
          (2, 'claimed', f.claimed, null, null),
          (2, 'age_days', f.age_days >= 7, f.age_days, 7),
          (2, 'contributions', f.contributions >= 10, f.contributions, 10),
          (2, 'net_votes', f.karma > 0, f.karma, 1),
          (3, 'established_days', coalesce(f.established_days >= 30, false), coalesce(f.established_days, 0), 30),
          (3, 'upvotes', coalesce(f.upvotes >= 100, false), coalesce(f.upvotes, 0), 100),
          (3, 'distinct_voters', coalesce(f.voters >= 20, false), coalesce(f.voters, 0), 20),
          (3, 'not_suspended', not f.suspended_90, null, null)
        ) r (level, code, met, have, need)
      ), levels as (
        -- The highest level whose every requirement, and every lower level's, is met; and what is missing.
        select r.id,
          coalesce(min(r.level) filter (where not r.met) - 1, 3)::smallint as level,
          coalesce(jsonb_agg(jsonb_build_object('level', r.level, 'code', r.code, 'have', r.have, 'need', r.need)
                             order by r.level, r.code) filter (where not r.met and p_detail), '[]') as unmet
        from requirements r
        group by r.id
      )
      select f.id, l.level, (case when f.on_probation then 0 else l.level end)::smallint, f.on_probation, l.unmet
      from facts f join levels l on l.id = f.id
    $function$;
