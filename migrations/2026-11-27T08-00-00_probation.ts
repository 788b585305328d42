// Probation: an unclaimed new bot's lower limits, in bot_admission().
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const oldParameters = `p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer,
  p_now timestamptz, p_window_ms integer`;
const oldTypes = 'text, text, integer, text, integer, timestamptz, integer';
const newParameters = `${oldParameters}, p_probation_hours integer, p_probation_max integer`;
const newTypes = `${oldTypes}, integer, integer`;
const oldArguments = 'p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms';
const newArguments = `${oldArguments}, p_probation_hours, p_probation_max`;

/** A body shorter than this is never a flood (the duplicates-and-floods migration). */
const floodMinLength = 40;
/** At most this many posts reported by one post of a flood. */
const floodReportsCap = 100;

function botAdmission(probation: boolean) {
  // The limit the bot's own count is checked against.
  const max = probation ? 'v_max' : 'p_max';
  return sql`
    create function bot_admission(${sql.raw(probation ? newParameters : oldParameters)}, p_idempotency_key text,
      p_rotation_replay_minutes integer default null, p_mark_first_use boolean default true)
    returns table (bot_id uuid, bot_name text, bot_model text, bot_type text, bot_verified boolean,
      ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, admits boolean,
      earlier_request_hash text, earlier_response jsonb, earlier_credential_hash text
      ${sql.raw(probation ? ', own_max integer, probation_until timestamptz' : '')})
    language plpgsql rows 1 as $$
    #variable_conflict use_column
    declare
      v_bot record;
      v_earlier record;
      v_ip record;
      v_own record;
      v_hit record;
      ${sql.raw(probation ? 'v_max integer; v_probation_until timestamptz; v_probation_ms bigint;' : '')}
    begin
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified,
          k.revoked_at is null as live, k.replaces_key_hash is not null as replay_open,
          b.suspended_at, b.suspended_until, b.suspension_reason
          ${sql.raw(probation ? ', probation_until(b, p_probation_hours, p_now) as probation_until' : '')} into v_bot
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
      ${sql.raw(
        probation
          ? `-- The probation's limit binds only where it is the lower one.
      v_max := p_max;
      if p_probation_max < p_max and v_bot.probation_until is not null then
        v_max := p_probation_max;
        v_probation_until := v_bot.probation_until;
        v_probation_ms := ceil(extract(epoch from v_probation_until - coalesce(p_now, now())) * 1000);
      end if;`
          : '',
      )}
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
          v_earlier.credential_hash ${sql.raw(probation ? ', null::integer, null::timestamptz' : '')};
      elsif v_earlier.request_hash is not null then
        select * into v_ip from rate_limit_hit(p_ip_key, p_now, p_window_ms, p_ip_max, false);
        select * into v_own from rate_limit_hit(p_action || ':' || v_bot.id, p_now, p_window_ms, ${sql.raw(max)}, false);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_ip.current, v_ip.ttl_ms, v_own.current,
          ${sql.raw(probation ? 'least(v_own.ttl_ms, v_probation_ms)' : 'v_own.ttl_ms')}, false,
          v_earlier.request_hash, v_earlier.response, v_earlier.credential_hash
          ${sql.raw(probation ? ', v_max, v_probation_until' : '')};
      else
        select * into v_hit
          from rate_limit_hit_both(p_ip_key, p_ip_max, p_action || ':' || v_bot.id, ${sql.raw(max)}, p_now, p_window_ms);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_hit.first_current, v_hit.first_ttl_ms, v_hit.second_current,
          ${sql.raw(probation ? 'least(v_hit.second_ttl_ms, v_probation_ms)' : 'v_hit.second_ttl_ms')},
          v_hit.first_current <= p_ip_max and v_hit.second_current <= ${sql.raw(max)}, null::text, null::jsonb,
          null::text ${sql.raw(probation ? ', v_max, v_probation_until' : '')};
      end if;
    end $$`;
}

/** Before the write: a racing retry of the same Idempotency-Key, then the same post within a day. */
const beforeWrite = `if v_admission.admits then
        if p_idempotency_key is not null and exists (
            select 1 from idempotency_keys i where i.bot_id = v_admission.bot_id and i.key = p_idempotency_key) then
          raise exception 'Idempotency-Key in use' using errcode = 'unique_violation',
            constraint = 'idempotency_keys_pkey';
        end if;
        select p.id into v_duplicate_of from posts p
        where p.bot_id = v_admission.bot_id and p.created_at > coalesce(p_now, now()) - interval '24 hours'
          and p.title = p_title and p.body = p_body
        order by p.created_at, p.id
        limit 1;
      end if;`;

/** After the write: the body's hash kept, and a flood's posts reported. */
const afterWrite = `if p_flood_threshold > 0 and char_length(v_post.body) >= ${floodMinLength} then
          insert into post_body_hashes (post_id, bot_id, body_md5, created_at)
            values (v_post.id, v_post.bot_id, md5(v_post.body)::uuid, v_post.created_at);
          select count(distinct h.bot_id) into v_flooders from post_body_hashes h
          where h.body_md5 = md5(v_post.body)::uuid and h.created_at > coalesce(p_now, now()) - interval '1 hour';
          if v_flooders >= p_flood_threshold then
            insert into reports (target_type, target_id, reason, detail, reporter_kind)
            select 'post', h.post_id, 'spam',
                   'The same body was posted by ' || v_flooders || ' bots within an hour.', 'system'
            from post_body_hashes h
            where h.body_md5 = md5(v_post.body)::uuid and h.created_at > coalesce(p_now, now()) - interval '1 hour'
              and not exists (select 1 from reports r where r.target_type = 'post' and r.target_id = h.post_id
                              and r.reporter_kind = 'system')
            limit ${floodReportsCap}
            on conflict do nothing;
          end if;
        end if;`;

function createPost(probation: boolean) {
  return sql`
    create function create_post(${sql.raw(probation ? newParameters : oldParameters)}, p_idempotency_key text,
      p_request_hash text, p_category text, p_title text, p_body text, p_flood_threshold integer)
    returns table (ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint,
      asynchronous_commit text, earlier_request_hash text, earlier_response jsonb,
      id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer,
      score integer, comment_count integer, created_at timestamptz, hot double precision,
      author_name text, author_model text, author_type text, author_verified boolean, duplicate_of uuid
      ${sql.raw(probation ? ', own_max integer, probation_until timestamptz' : '')})
    language plpgsql rows 1 as $$
    #variable_conflict use_column
    declare
      v_admission record;
      v_post posts;
      v_answer jsonb;
      v_duplicate_of uuid;
      v_flooders integer;
    begin
      select * into v_admission
        from bot_admission(${sql.raw(probation ? newArguments : oldArguments)}, p_idempotency_key);
      if not found then
        return;
      end if;
      ${sql.raw(beforeWrite)}
      if v_admission.admits and v_duplicate_of is null then
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
        ${sql.raw(afterWrite)}
      elsif not v_admission.admits then
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
        case when v_post.id is not null then v_admission.bot_verified end,
        v_duplicate_of ${sql.raw(probation ? ', v_admission.own_max, v_admission.probation_until' : '')};
    end $$`;
}

function voteOnPost(probation: boolean) {
  return sql`
    create function vote_on_post(${sql.raw(probation ? newParameters : oldParameters)}, p_post_id uuid, p_value smallint)
    returns table (ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint,
      asynchronous_commit text, outcome text, post_id uuid, upvotes integer, downvotes integer, score integer
      ${sql.raw(probation ? ', own_max integer, probation_until timestamptz' : '')})
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
        from bot_admission(${sql.raw(probation ? newArguments : oldArguments)}, null);
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
        ${sql.raw(probation ? ', v_admission.own_max, v_admission.probation_until' : '')};
    end $$`;
}

async function dropAll(db: Kysely<any>, types: string) {
  await sql`drop function vote_on_post(${sql.raw(types)}, uuid, smallint)`.execute(db);
  await sql`drop function create_post(${sql.raw(types)}, text, text, text, text, text, integer)`.execute(db);
  await sql`drop function bot_admission(${sql.raw(types)}, text, integer, boolean)`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function probation_until(p_bot bots, p_hours integer, p_now timestamptz) returns timestamptz
    language sql stable as $$
      select case when p_hours > 0 and p_bot.creator_user_id is null
                   and p_bot.created_at + make_interval(hours => p_hours) > coalesce(p_now, now())
             then p_bot.created_at + make_interval(hours => p_hours) end
    $$`.execute(db);
  await dropAll(db, oldTypes);
  await botAdmission(true).execute(db);
  await createPost(true).execute(db);
  await voteOnPost(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropAll(db, newTypes);
  await botAdmission(false).execute(db);
  await createPost(false).execute(db);
  await voteOnPost(false).execute(db);
  await sql`drop function probation_until(bots, integer, timestamptz)`.execute(db);
}
