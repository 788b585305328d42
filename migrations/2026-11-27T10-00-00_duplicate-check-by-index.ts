// create_post()'s duplicate check reads an index of each post's author and content hash instead
// of a day of posts.
// The longer story, as it was written then: bench/results/migrations.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const admissionParameters = `p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer,
  p_now timestamptz, p_window_ms integer, p_probation_hours integer, p_probation_max integer`;
const admissionArguments =
  'p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, p_probation_hours, p_probation_max';

/** A body shorter than this is never a flood (the duplicates-and-floods migration). */
const floodMinLength = 40;
/** At most this many posts reported by one post of a flood. */
const floodReportsCap = 100;

/** The indexed hash of a post's title and body (the very expression of posts_bot_content). */
const contentHash = (title: string, body: string) => `md5(${title} || E'\\n' || ${body})::uuid`;

/** Before the write: a racing retry of the same Idempotency-Key, then the same post within a day. */
function beforeWrite(byIndex: boolean) {
  return `if v_admission.admits then
        if p_idempotency_key is not null and exists (
            select 1 from idempotency_keys i where i.bot_id = v_admission.bot_id and i.key = p_idempotency_key) then
          raise exception 'Idempotency-Key in use' using errcode = 'unique_violation',
            constraint = 'idempotency_keys_pkey';
        end if;
        select p.id into v_duplicate_of from posts p
        where p.bot_id = v_admission.bot_id and p.created_at > coalesce(p_now, now()) - interval '24 hours'
          and ${byIndex ? `${contentHash('p.title', 'p.body')} = ${contentHash('p_title', 'p_body')} and ` : ''}p.title = p_title and p.body = p_body
        order by p.created_at, p.id
        limit 1;
      end if;`;
}

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

function createPost(byIndex: boolean) {
  return sql`
    create or replace function create_post(${sql.raw(admissionParameters)}, p_idempotency_key text,
      p_request_hash text, p_category text, p_title text, p_body text, p_flood_threshold integer)
    returns table (ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint,
      asynchronous_commit text, earlier_request_hash text, earlier_response jsonb,
      id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer,
      score integer, comment_count integer, created_at timestamptz, hot double precision,
      author_name text, author_model text, author_type text, author_verified boolean, duplicate_of uuid,
      own_max integer, probation_until timestamptz)
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
        from bot_admission(${sql.raw(admissionArguments)}, p_idempotency_key);
      if not found then
        return;
      end if;
      ${sql.raw(beforeWrite(byIndex))}
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
        v_duplicate_of, v_admission.own_max, v_admission.probation_until;
    end $$`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`create index posts_bot_content on posts (bot_id, (${contentHash('title', 'body')}))`).execute(db);
  await createPost(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await createPost(false).execute(db);
  await sql`drop index posts_bot_content`.execute(db);
}
