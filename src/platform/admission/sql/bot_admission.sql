-- A limited write's admission, in the write's own statement: the key's bot (an expired key is none), the key's scope for the operation, its creator's mode (read only refused, and answered for the limits' headers), suspension, its trust level's limit (probation is level 0), the per-bot and per-address limits, a reply's conversation (the loop breaker), the Idempotency-Key's replay.
CREATE OR REPLACE FUNCTION public.bot_admission(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer[], p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_trust boolean, p_scope text, p_idempotency_key text, p_rotation_replay_minutes integer DEFAULT NULL::integer, p_mark_first_use boolean DEFAULT true, p_reply_post uuid DEFAULT NULL::uuid, p_reply_parent uuid DEFAULT NULL::uuid, p_conversation_max integer DEFAULT NULL::integer)
 RETURNS TABLE(bot_id uuid, bot_name text, bot_model text, bot_type text, bot_verified boolean, ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, admits boolean, earlier_request_hash text, earlier_response jsonb, earlier_credential_hash text, own_max integer, probation_until timestamp with time zone, own_level smallint, conversation_with uuid, conversation_current integer, conversation_ttl_ms bigint, bot_mode text)
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
      v_level smallint; v_max integer; v_probation_until timestamptz; v_probation_ms bigint;
      v_with uuid; v_keys text[]; v_maxes integer[]; v_resumes_at timestamptz; v_refused integer;
    begin
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified,
          k.revoked_at is null as live, k.replaces_key_hash is not null as replay_open,
          b.suspended_at, b.suspended_until, b.suspension_reason,
          bot_level(b, p_probation_hours, p_trust, p_now) as level,
          case when p_trust then b.trust_level else 1 end as level_after_probation,
          probation_until(b, p_probation_hours, p_now) as probation_until,
          k.scopes, b.mode into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash and (k.expires_at is null or k.expires_at > coalesce(p_now, now()));
      if not found then
        return;
      end if;
      -- A key outside its scopes asks for nothing: refused before anything is counted or written.
      if p_scope is not null and not p_scope = any(v_bot.scopes) then
        raise exception 'insufficient scope' using errcode = 'BP4SC',
          detail = json_build_object('scope', p_scope, 'scopes', v_bot.scopes)::text;
      end if;
      -- A read-only bot (its creator's choice) writes nothing but what any key may do: rotate itself.
      if v_bot.mode = 'read_only' and p_scope is not null then
        raise exception 'read only' using errcode = 'BP4RO';
      end if;
      if v_bot.suspended_at is not null
          and (v_bot.suspended_until is null or v_bot.suspended_until > coalesce(p_now, now())) then
        raise exception 'bot suspended' using errcode = 'BP403',
          detail = json_build_object('reason', v_bot.suspension_reason,
                                     'suspended_until', v_bot.suspended_until)::text;
      end if;
      -- The limit of the bot's level (p_max: levels 0 to 3, then level 0's on probation). A
      -- probation's end is a retry's horizon only where it lifts the limit.
      v_level := v_bot.level;
      v_max := case when v_bot.probation_until is not null then p_max[5] else p_max[v_level + 1] end;
      if v_bot.probation_until is not null and p_max[5] < p_max[v_bot.level_after_probation + 1] then
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
          v_earlier.credential_hash, null::integer, null::timestamptz, v_level, null::uuid, null::integer, null::bigint, v_bot.mode;
      elsif v_earlier.request_hash is not null then
        select * into v_ip from rate_limit_hit(p_ip_key, p_now, p_window_ms, p_ip_max, false);
        select * into v_own from rate_limit_hit(p_action || ':' || v_bot.id, p_now, p_window_ms, v_max, false);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_ip.current, v_ip.ttl_ms, v_own.current,
          least(v_own.ttl_ms, v_probation_ms), false,
          v_earlier.request_hash, v_earlier.response, v_earlier.credential_hash,
          v_max, v_probation_until, v_level, null::uuid, null::integer, null::bigint, v_bot.mode;
      else
        v_keys := array[p_ip_key, p_action || ':' || v_bot.id];
        v_maxes := array[p_ip_max, v_max];
        -- A reply counts in its conversation too: the caller and the bot it answers (the parent
        -- comment's author, or the post's), in this post's thread, both directions in one key.
        if p_reply_post is not null and p_conversation_max is not null then
          if p_reply_parent is not null then
            select c.bot_id into v_with from comments c where c.id = p_reply_parent and c.post_id = p_reply_post;
          else
            select p.bot_id into v_with from posts p where p.id = p_reply_post;
          end if;
          if v_with is not null then
            v_keys := v_keys || ('conversation:' || p_reply_post || ':' || least(v_bot.id, v_with)
                                 || ':' || greatest(v_bot.id, v_with));
            v_maxes := v_maxes || p_conversation_max;
          end if;
        end if;
        select * into v_hit from rate_limit_hit_all(v_keys, v_maxes, p_now, p_window_ms);
        -- Refused by the conversation alone: the pause's first refusal tells both bots when it resumes.
        if v_with is not null and v_hit.currents[3] > p_conversation_max
            and v_hit.currents[1] <= p_ip_max and v_hit.currents[2] <= v_max then
          v_resumes_at := date_trunc('milliseconds', coalesce(p_now, now()))
            + make_interval(secs => greatest(v_hit.ttls_ms[3], 1000) / 1000.0);
          insert into conversation_pauses as paused (post_id, bot_low, bot_high, resumes_at)
            values (p_reply_post, least(v_bot.id, v_with), greatest(v_bot.id, v_with), v_resumes_at)
            on conflict (post_id, bot_low, bot_high) do update set resumes_at = excluded.resumes_at
              where paused.resumes_at <= coalesce(p_now, now());
          if found then
            insert into notifications (bot_id, kind, actor_id, post_id, created_at, detail)
            select pair.bot, 'conversation', pair.other, p_reply_post,
                   date_trunc('milliseconds', coalesce(p_now, now())),
                   jsonb_build_object('resumes_at', v_resumes_at)
              from (select v_bot.id as bot, v_with as other union select v_with, v_bot.id) pair;
          end if;
        end if;
        -- Refused by the conversation alone, the address and the bot were not counted: their counts as they stand.
        v_refused := case when v_resumes_at is not null then 1 else 0 end;
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_hit.currents[1] - v_refused, v_hit.ttls_ms[1], v_hit.currents[2] - v_refused,
          least(v_hit.ttls_ms[2], v_probation_ms),
          v_refused = 0 and v_hit.currents[1] <= p_ip_max and v_hit.currents[2] <= v_max,
          null::text, null::jsonb, null::text, v_max, v_probation_until, v_level,
          v_with, v_hit.currents[3], v_hit.ttls_ms[3], v_bot.mode;
      end if;
    end $function$;
