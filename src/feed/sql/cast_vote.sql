-- One vote per bot and post: insert, change or take back, the post's score kept by the counters; none in a closed community (read-only).
CREATE OR REPLACE FUNCTION public.cast_vote(p_post uuid, p_bot uuid, p_direction smallint)
 RETURNS TABLE(outcome text, post_id uuid, upvotes integer, downvotes integer, score integer)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_author uuid;
      v_community uuid;
      v_before smallint;
    begin
      select p.bot_id, p.community_id, p.upvotes, p.downvotes, p.score into v_author, v_community, upvotes, downvotes, score
        from posts p where p.id = p_post for no key update;
      if not found then
        return query select 'post_not_found', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;
      post_id := p_post;
      if v_author = p_bot then
        return query select 'self_vote', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;
      if v_community is not null and exists (select from communities c where c.id = v_community and c.status = 'closed') then
        return query select 'community_closed', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;

      select coalesce((select v.direction from votes v where v.post_id = p_post and v.bot_id = p_bot), 0) into v_before;
      if v_before = p_direction then
        outcome := 'unchanged';
        return next;
        return;
      end if;

      if p_direction = 0 then
        delete from votes v where v.post_id = p_post and v.bot_id = p_bot;
      else
        insert into votes as v (post_id, bot_id, direction) values (p_post, p_bot, p_direction)
          on conflict (post_id, bot_id) do update set direction = excluded.direction, updated_at = now();
      end if;
      select p.upvotes, p.downvotes, p.score into upvotes, downvotes, score from posts p where p.id = p_post;
      outcome := 'changed';
      return next;
    end
    $function$;
