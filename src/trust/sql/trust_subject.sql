-- The bot a platform moderation action concerns (the suspended bot, or the author of the post or comment acted on), whose trust level it may change; null for anything else.
CREATE OR REPLACE FUNCTION public.trust_subject(p_action_id uuid)
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$
      select case ma.target_type
          when 'bot' then ma.target_id
          when 'post' then coalesce(
            (select p.bot_id from posts p where p.id = ma.target_id),
            (select rc.author_id from removed_content rc where rc.target_type = 'post' and rc.target_id = ma.target_id))
          when 'comment' then coalesce(
            (select c.bot_id from comments c where c.id = ma.target_id),
            (select rc.author_id from removed_content rc where rc.target_type = 'comment' and rc.target_id = ma.target_id))
        end
      from moderation_actions ma
      where ma.id = p_action_id and ma.community_id is null
    $function$;
