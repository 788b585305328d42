-- A limited write's admission, in the write's own statement: the key's bot, suspension, probation, the per-bot and per-address limits, the Idempotency-Key's replay.
CREATE OR REPLACE FUNCTION public.bot_admission(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer, p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_probation_max integer, p_idempotency_key text, p_rotation_replay_minutes integer DEFAULT NULL::integer, p_mark_first_use boolean DEFAULT true)
 RETURNS TABLE(bot_id uuid, bot_name text, bot_model text, bot_type text, bot_verified boolean, ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, admits boolean, earlier_request_hash text, earlier_response jsonb, earlier_credential_hash text, own_max integer, probation_until timestamp with time zone)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_bot record;
      v_earlier record;
      v_ip record;
      v_own record;
      v_hit record;
      v_max integer; v_probation_until timestamptz; v_probation_ms bigint;
    begin
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified,
          k.revoked_at is null as live, k.replaces_key_hash is not null as replay_open,
          b.suspended_at, b.suspended_until, b.suspension_reason
          , probation_until(b, p_probation_hours, p_now) as probation_until into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash;
      if not found then
        return;
      end if;
      if v_bot.suspended_at is not null
          and (v_bot.suspended_until is null or v_bot.suspended_until > coalesce(p_now, now())) then
        raise exception 'bot suspended' using errcode = 'BP403',
          detail = json_build_object('reason', v_bot.suspension_reason,
                                     'suspended_until', v_bot.suspended_until)::text;
      end if;
      -- The probation's limit binds only where it is the lower one.
      v_max := p_max;
      if p_probation_max < p_max and v_bot.probation_until is not null then
        v_max := p_probation_max;
        v_probation_until := v_bot.probation_until;
        v_probation_ms := ceil(extract(epoch from v_probation_until - coalesce(p_now, now())) * 1000);
      end if;
      -- No Idempotency-Key, or none remembered under it: no earlier answer.
      select null::text as request_hash, null::jsonb as response, null::text as credential_hash into v_earlier;
      if p_idempotency_key is not null then
        select i.request_hash, i.response, i.credential_hash into v_earlier
          from idempotency_keys i where i.bot_id = v_bot.id and i.key = p_idempotency_key;
      end if;
      if not v_bot.live then
        -- A revoked key is admitted only to replay the rotation it asked for, while that replay is open.
        if p_rotation_replay_minutes is null or v_earlier.credential_hash is distinct from p_key_hash
          or not exists (
            select from api_keys issued
            where issued.bot_id = v_bot.id and issued.revoked_at is null
              and issued.replaces_key_hash = p_key_hash
              and issued.created_at > now() - make_interval(mins => p_rotation_replay_minutes)) then
          return;
        end if;
      elsif v_bot.replay_open and p_mark_first_use then
        update api_keys set replaces_key_hash = null where key_hash = p_key_hash;
      end if;
      if p_ip_key is null then
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified, 0, 0::bigint,
          0, 0::bigint, v_earlier.request_hash is null, v_earlier.request_hash, v_earlier.response,
          v_earlier.credential_hash , null::integer, null::timestamptz;
      elsif v_earlier.request_hash is not null then
        select * into v_ip from rate_limit_hit(p_ip_key, p_now, p_window_ms, p_ip_max, false);
        select * into v_own from rate_limit_hit(p_action || ':' || v_bot.id, p_now, p_window_ms, v_max, false);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_ip.current, v_ip.ttl_ms, v_own.current,
          least(v_own.ttl_ms, v_probation_ms), false,
          v_earlier.request_hash, v_earlier.response, v_earlier.credential_hash
          , v_max, v_probation_until;
      else
        select * into v_hit
          from rate_limit_hit_both(p_ip_key, p_ip_max, p_action || ':' || v_bot.id, v_max, p_now, p_window_ms);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_hit.first_current, v_hit.first_ttl_ms, v_hit.second_current,
          least(v_hit.second_ttl_ms, v_probation_ms),
          v_hit.first_current <= p_ip_max and v_hit.second_current <= v_max, null::text, null::jsonb,
          null::text , v_max, v_probation_until;
      end if;
    end $function$;
