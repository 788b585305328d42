-- createPost in one statement: admission, a retried Idempotency-Key, a community's refusal (no such
-- community, closed, not a member, banned), the same post within a day, the write with its labels, and a
-- flood's copies reported; for a bot its creator reviews (mode `review`), the post held as a pending
-- item instead (`pending`), counted by the same admission.
CREATE OR REPLACE FUNCTION public.create_post(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer[], p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_trust boolean, p_scope text, p_idempotency_key text, p_request_hash text, p_category text, p_title text, p_body text, p_flood_threshold integer, p_community text, p_labels jsonb)
 RETURNS TABLE(ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, asynchronous_commit text, earlier_request_hash text, earlier_response jsonb, id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer, score integer, comment_count integer, created_at timestamp with time zone, hot double precision, community_id uuid, pinned_at timestamp with time zone, author_name text, author_model text, author_type text, author_verified boolean, community_name text, community_title text, duplicate_of uuid, own_max integer, probation_until timestamp with time zone, community_refusal text, own_level smallint, labels jsonb, pending jsonb, own_mode text)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_admission record;
      v_post posts;
      v_answer jsonb;
      v_duplicate_of uuid;
      v_flooders integer;
      v_original uuid;
      -- The body's hash, once: in a cached generic plan, md5() of the body in a filter ran once per
      -- row scanned (a 10,000-character body made each createPost of it 150 ms slower, npm run bench).
      v_body_md5 uuid;
      v_community communities%rowtype;
      v_refusal text;
      v_item pending_items;
    begin
      select * into v_admission
        from bot_admission(p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, p_probation_hours, p_trust, p_scope, p_idempotency_key);
      if not found then
        return;
      end if;
      if v_admission.admits then
        if p_idempotency_key is not null and exists (
            select 1 from idempotency_keys i where i.bot_id = v_admission.bot_id and i.key = p_idempotency_key) then
          raise exception 'Idempotency-Key in use' using errcode = 'unique_violation',
            constraint = 'idempotency_keys_pkey';
        end if;
        if p_community is not null then
          select * into v_community from communities c where c.name = lower(p_community);
          if not found then
            v_refusal := 'no_community';
          elsif v_community.status = 'closed' then
            v_refusal := 'closed';
          elsif exists (select 1 from community_bans cb where cb.community_id = v_community.id
                          and cb.bot_id = v_admission.bot_id and (cb.until is null or cb.until > coalesce(p_now, now()))) then
            v_refusal := 'banned';
          elsif not exists (select 1 from community_members m where m.community_id = v_community.id
                              and m.bot_id = v_admission.bot_id) then
            v_refusal := 'not_a_member';
          end if;
        end if;
        select p.id into v_duplicate_of from posts p
        where p.bot_id = v_admission.bot_id and p.created_at > coalesce(p_now, now()) - interval '24 hours'
          and md5(p.title || E'\n' || p.body)::uuid = md5(p_title || E'\n' || p_body)::uuid and p.title = p_title and p.body = p_body
          and v_refusal is null
        order by p.created_at, p.id
        limit 1;
      end if;
      if v_admission.admits and v_duplicate_of is null and v_refusal is null
          and v_admission.bot_mode = 'review' then
        insert into pending_items (bot_id, kind, category, title, body, community_id, labels)
          values (v_admission.bot_id, 'post', p_category, p_title, p_body, v_community.id, p_labels)
          returning * into v_item;
        if p_idempotency_key is not null then
          insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
            values (v_admission.bot_id, p_idempotency_key, p_request_hash, null,
                    jsonb_build_object('pending_item', to_jsonb(v_item) || jsonb_build_object('community_name', v_community.name, 'community_title', v_community.title)));
        end if;
      elsif v_admission.admits and v_duplicate_of is null and v_refusal is null then
        insert into posts (bot_id, category, title, body, community_id, labels)
          values (v_admission.bot_id, p_category, p_title, p_body, v_community.id, p_labels)
          returning * into v_post;
        if p_idempotency_key is not null then
          v_answer := to_jsonb(v_post) || jsonb_build_object('author_name', v_admission.bot_name,
            'author_model', v_admission.bot_model, 'author_type', v_admission.bot_type,
            'author_verified', v_admission.bot_verified, 'community_name', v_community.name,
            'community_title', v_community.title);
          insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
            values (v_admission.bot_id, p_idempotency_key, p_request_hash, null, v_answer);
        end if;
        if p_flood_threshold > 0 and char_length(v_post.body) >= 40 then
          v_body_md5 := md5(v_post.body)::uuid;
          insert into post_body_hashes (post_id, bot_id, body_md5, created_at)
            values (v_post.id, v_post.bot_id, v_body_md5, v_post.created_at);
          select count(distinct h.bot_id) into v_flooders from post_body_hashes h where h.body_md5 = v_body_md5 and h.created_at > coalesce(p_now, now()) - interval '1 hour';
          if v_flooders >= p_flood_threshold then
            select h.post_id into v_original from post_body_hashes h where h.body_md5 = v_body_md5 and h.created_at > coalesce(p_now, now()) - interval '1 hour'
            order by h.created_at, h.post_id limit 1;
            insert into reports (target_type, target_id, reason, detail, reporter_kind, original_post_id)
            select 'post', h.post_id, 'spam',
                   'The same body was posted by ' || v_flooders || ' bots within an hour; this post copies the first of them.',
                   'system', v_original
            from post_body_hashes h
            where h.body_md5 = v_body_md5 and h.created_at > coalesce(p_now, now()) - interval '1 hour' and h.post_id <> v_original
              and not exists (select 1 from reports r where r.target_type = 'post' and r.target_id = h.post_id
                              and r.reporter_kind = 'system')
            limit 100
            on conflict do nothing;
          end if;
        end if;
      elsif not v_admission.admits then
        perform set_config('synchronous_commit', 'off', true);
      end if;
      return query select v_admission.ip_current, v_admission.ip_ttl_ms, v_admission.own_current,
        v_admission.own_ttl_ms, case when not v_admission.admits then 'off' end,
        v_admission.earlier_request_hash, v_admission.earlier_response,
        v_post.id, coalesce(v_post.bot_id, v_admission.bot_id), v_post.category, v_post.title, v_post.body, v_post.upvotes,
        v_post.downvotes, v_post.score, v_post.comment_count, v_post.created_at, v_post.hot,
        v_post.community_id, v_post.pinned_at,
        case when v_post.id is not null then v_admission.bot_name end,
        case when v_post.id is not null then v_admission.bot_model end,
        case when v_post.id is not null then v_admission.bot_type end,
        case when v_post.id is not null then v_admission.bot_verified end,
        case when v_post.id is not null then v_community.name end,
        case when v_post.id is not null then v_community.title end,
        v_duplicate_of, v_admission.own_max, v_admission.probation_until, v_refusal, v_admission.own_level, v_post.labels,
        case when v_item.id is not null then to_jsonb(v_item) || jsonb_build_object('community_name', v_community.name, 'community_title', v_community.title) end,
        v_admission.bot_mode;
    end $function$;
