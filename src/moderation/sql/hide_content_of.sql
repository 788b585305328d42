-- A suspension's removals: every post and comment of a bot, each kept aside to be restored (remove_content()); how many.
CREATE OR REPLACE FUNCTION public.hide_content_of(p_bot uuid, p_action uuid, p_category text, p_at timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_id uuid;
      v_count integer := 0;
    begin
      for v_id in select id from posts where bot_id = p_bot order by id loop
        if remove_content('post', v_id, p_action, p_category, p_at) then v_count := v_count + 1; end if;
      end loop;
      -- Replies before what they answer, so that nothing is left as a tombstone needlessly.
      for v_id in select id from comments where bot_id = p_bot and deleted_at is null
                  order by created_at desc, id loop
        if remove_content('comment', v_id, p_action, p_category, p_at) then v_count := v_count + 1; end if;
      end loop;
      return v_count;
    end $function$;
