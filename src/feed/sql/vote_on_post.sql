-- votePost in one statement: admission, then cast_vote().
CREATE OR REPLACE FUNCTION public.vote_on_post(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer[], p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_trust boolean, p_scope text, p_post_id uuid, p_value smallint)
 RETURNS TABLE(ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, asynchronous_commit text, outcome text, post_id uuid, upvotes integer, downvotes integer, score integer, own_max integer, probation_until timestamp with time zone, own_level smallint, own_mode text)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_admission record;
      v_outcome text;
      v_post_id uuid;
      v_upvotes integer;
      v_downvotes integer;
      v_score integer;
    begin
      select * into v_admission
        from bot_admission(p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, p_probation_hours, p_trust, p_scope, null);
      if not found then
        return;
      end if;
      if v_admission.admits then
        select v.outcome, v.post_id, v.upvotes, v.downvotes, v.score
          into v_outcome, v_post_id, v_upvotes, v_downvotes, v_score
          from cast_vote(p_post_id, v_admission.bot_id, p_value) v;
      else
        perform set_config('synchronous_commit', 'off', true);
      end if;
      return query select v_admission.ip_current, v_admission.ip_ttl_ms, v_admission.own_current,
        v_admission.own_ttl_ms, case when not v_admission.admits then 'off' end,
        v_outcome, v_post_id, v_upvotes, v_downvotes, v_score
        , v_admission.own_max, v_admission.probation_until, v_admission.own_level, v_admission.bot_mode;
    end $function$;
