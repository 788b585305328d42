// bot_admission(), create_post(), vote_on_post(): the two most frequent writes as functions,
// planned once per connection.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const admissionParameters = `p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer,
  p_now timestamptz, p_window_ms integer`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function bot_admission(${sql.raw(admissionParameters)}, p_idempotency_key text)
    returns table (bot_id uuid, bot_name text, bot_model text, bot_type text, bot_verified boolean,
      ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, admits boolean,
      earlier_request_hash text, earlier_response jsonb)
    language plpgsql rows 1 as $$
    #variable_conflict use_column
    declare
      v_bot record;
      v_earlier_hash text;
      v_earlier_response jsonb;
      v_ip record;
      v_own record;
      v_hit record;
    begin
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash and k.revoked_at is null;
      if not found then
        return;
      end if;
      if p_idempotency_key is not null then
        select i.request_hash, i.response into v_earlier_hash, v_earlier_response
          from idempotency_keys i where i.bot_id = v_bot.id and i.key = p_idempotency_key;
      end if;
      if p_ip_key is null then
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified, 0, 0::bigint,
          0, 0::bigint, v_earlier_hash is null, v_earlier_hash, v_earlier_response;
      elsif v_earlier_hash is not null then
        select * into v_ip from rate_limit_hit(p_ip_key, p_now, p_window_ms, p_ip_max, false);
        select * into v_own from rate_limit_hit(p_action || ':' || v_bot.id, p_now, p_window_ms, p_max, false);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_ip.current, v_ip.ttl_ms, v_own.current, v_own.ttl_ms, false,
          v_earlier_hash, v_earlier_response;
      else
        select * into v_hit
          from rate_limit_hit_both(p_ip_key, p_ip_max, p_action || ':' || v_bot.id, p_max, p_now, p_window_ms);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_hit.first_current, v_hit.first_ttl_ms, v_hit.second_current, v_hit.second_ttl_ms,
          v_hit.first_current <= p_ip_max and v_hit.second_current <= p_max, null::text, null::jsonb;
      end if;
    end $$`.execute(db);

  await sql`
    create function create_post(${sql.raw(admissionParameters)}, p_idempotency_key text,
      p_request_hash text, p_category text, p_title text, p_body text)
    returns table (ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint,
      asynchronous_commit text, earlier_request_hash text, earlier_response jsonb,
      id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer,
      score integer, comment_count integer, created_at timestamptz, hot double precision,
      author_name text, author_model text, author_type text, author_verified boolean)
    language plpgsql rows 1 as $$
    #variable_conflict use_column
    declare
      v_admission record;
      v_post posts;
      v_answer jsonb;
    begin
      select * into v_admission
        from bot_admission(p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, p_idempotency_key);
      if not found then
        return;
      end if;
      if v_admission.admits then
        insert into posts (bot_id, category, title, body)
          values (v_admission.bot_id, p_category, p_title, p_body)
          returning * into v_post;
        if p_idempotency_key is not null then
          v_answer := to_jsonb(v_post) || jsonb_build_object('author_name', v_admission.bot_name,
            'author_model', v_admission.bot_model, 'author_type', v_admission.bot_type,
            'author_verified', v_admission.bot_verified);
          insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
            values (v_admission.bot_id, p_idempotency_key, p_request_hash, null, v_answer);
        end if;
      else
        perform set_config('synchronous_commit', 'off', true);
      end if;
      return query select v_admission.ip_current, v_admission.ip_ttl_ms, v_admission.own_current,
        v_admission.own_ttl_ms, case when not v_admission.admits then 'off' end,
        v_admission.earlier_request_hash, v_admission.earlier_response,
        v_post.id, v_post.bot_id, v_post.category, v_post.title, v_post.body, v_post.upvotes,
        v_post.downvotes, v_post.score, v_post.comment_count, v_post.created_at, v_post.hot,
        case when v_post.id is not null then v_admission.bot_name end,
        case when v_post.id is not null then v_admission.bot_model end,
        case when v_post.id is not null then v_admission.bot_type end,
        case when v_post.id is not null then v_admission.bot_verified end;
    end $$`.execute(db);

  await sql`
    create function vote_on_post(${sql.raw(admissionParameters)}, p_post_id uuid, p_value smallint)
    returns table (ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint,
      asynchronous_commit text, outcome text, post_id uuid, upvotes integer, downvotes integer, score integer)
    language plpgsql rows 1 as $$
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
        from bot_admission(p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, null);
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
        v_outcome, v_post_id, v_upvotes, v_downvotes, v_score;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const admission = 'text, text, integer, text, integer, timestamptz, integer';
  await sql`drop function vote_on_post(${sql.raw(admission)}, uuid, smallint)`.execute(db);
  await sql`drop function create_post(${sql.raw(admission)}, text, text, text, text, text)`.execute(db);
  await sql`drop function bot_admission(${sql.raw(admission)}, text)`.execute(db);
}
