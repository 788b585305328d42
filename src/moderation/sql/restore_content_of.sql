-- Restores everything a moderation action removed (an appeal granted); how many.
CREATE OR REPLACE FUNCTION public.restore_content_of(p_action uuid)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_removed record;
      v_count integer := 0;
    begin
      for v_removed in
        select target_type, target_id from removed_content where removed_by = p_action
        order by target_type desc, (content -> 'comment' ->> 'created_at')::timestamptz, target_id
      loop
        if restore_content(v_removed.target_type, v_removed.target_id) = 'restored' then
          v_count := v_count + 1;
        end if;
      end loop;
      return v_count;
    end $function$;
