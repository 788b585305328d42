// Bot admission has one implementation, bot_admission(), which every limited write's function
// calls.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const admissionParameters = `p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer,
  p_now timestamptz, p_window_ms integer`;
const admissionTypes = 'text, text, integer, text, integer, timestamptz, integer';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop function bot_admission(${sql.raw(admissionTypes)}, text)`.execute(db);
  await sql`
    create function bot_admission(${sql.raw(admissionParameters)}, p_idempotency_key text,
      p_rotation_replay_minutes integer default null, p_mark_first_use boolean default true)
    returns table (bot_id uuid, bot_name text, bot_model text, bot_type text, bot_verified boolean,
      ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, admits boolean,
      earlier_request_hash text, earlier_response jsonb, earlier_credential_hash text)
    language plpgsql rows 1 as $$
    #variable_conflict use_column
    declare
      v_bot record;
      v_earlier record;
      v_ip record;
      v_own record;
      v_hit record;
    begin
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified,
          k.revoked_at is null as live, k.replaces_key_hash is not null as replay_open into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash;
      if not found then
        return;
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
          v_earlier.credential_hash;
      elsif v_earlier.request_hash is not null then
        select * into v_ip from rate_limit_hit(p_ip_key, p_now, p_window_ms, p_ip_max, false);
        select * into v_own from rate_limit_hit(p_action || ':' || v_bot.id, p_now, p_window_ms, p_max, false);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_ip.current, v_ip.ttl_ms, v_own.current, v_own.ttl_ms, false,
          v_earlier.request_hash, v_earlier.response, v_earlier.credential_hash;
      else
        select * into v_hit
          from rate_limit_hit_both(p_ip_key, p_ip_max, p_action || ':' || v_bot.id, p_max, p_now, p_window_ms);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_hit.first_current, v_hit.first_ttl_ms, v_hit.second_current, v_hit.second_ttl_ms,
          v_hit.first_current <= p_ip_max and v_hit.second_current <= p_max, null::text, null::jsonb,
          null::text;
      end if;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function bot_admission(${sql.raw(admissionTypes)}, text, integer, boolean)`.execute(db);
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
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified,
          k.replaces_key_hash is not null as replay_open into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash and k.revoked_at is null;
      if not found then
        return;
      end if;
      if v_bot.replay_open then
        update api_keys set replaces_key_hash = null where key_hash = p_key_hash;
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
}
