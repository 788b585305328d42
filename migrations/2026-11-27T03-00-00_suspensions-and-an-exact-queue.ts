// Suspensions, the bot told of every action on it, and the queue (report_targets) kept exact by
// trigger.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const admissionParameters = `p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer,
  p_now timestamptz, p_window_ms integer`;

/** A known key of a suspended bot (a revoked one included: no replay either) writes nothing. */
const refuseSuspended = `
      if v_bot.suspended_at is not null
          and (v_bot.suspended_until is null or v_bot.suspended_until > coalesce(p_now, now())) then
        raise exception 'bot suspended' using errcode = 'BP403',
          detail = json_build_object('reason', v_bot.suspension_reason,
                                     'suspended_until', v_bot.suspended_until)::text;
      end if;`;

/** bot_admission() as the one-bot-admission migration made it, refusing suspended bots or not. */
function botAdmission(suspensions: boolean) {
  return sql`
    create or replace function bot_admission(${sql.raw(admissionParameters)}, p_idempotency_key text,
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
          k.revoked_at is null as live, k.replaces_key_hash is not null as replay_open
          ${sql.raw(suspensions ? ', b.suspended_at, b.suspended_until, b.suspension_reason' : '')} into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash;
      if not found then
        return;
      end if;
      ${sql.raw(suspensions ? refuseSuspended : '')}
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
    end $$`;
}

/** report_targets_count(), the moderation migration's or made exact (see above). */
function reportTargetsCount(exact: boolean) {
  const leave = exact
    ? `delete from report_targets t
        where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id)
          and t.reports_count = 1;
        if not found then
          update report_targets t set
            reports_count = t.reports_count - 1,
            reasons = case when (t.reasons ->> p_report.reason)::integer > 1
                      then t.reasons || jsonb_build_object(p_report.reason, (t.reasons ->> p_report.reason)::integer - 1)
                      else t.reasons - p_report.reason end
          where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id);
        end if;`
    : `update report_targets t set
          reports_count = t.reports_count - 1,
          reasons = case when (t.reasons ->> p_report.reason)::integer > 1
                    then t.reasons || jsonb_build_object(p_report.reason, (t.reasons ->> p_report.reason)::integer - 1)
                    else t.reasons - p_report.reason end
        where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id)
          and t.reports_count > 1;
        if not found then
          delete from report_targets t
          where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id);
        end if;`;
  return sql`
    create or replace function report_targets_count(p_report reports, p_step integer) returns void
    language plpgsql as $$
    begin
      if p_step > 0 then
        insert into report_targets as t
          (status, target_type, target_id, reports_count, reasons, first_reported_at, last_reported_at)
        values (p_report.status, p_report.target_type, p_report.target_id, 1,
                jsonb_build_object(p_report.reason, 1), p_report.created_at, p_report.created_at)
        on conflict (status, target_type, target_id) do update set
          reports_count = t.reports_count + 1,
          reasons = t.reasons || jsonb_build_object(p_report.reason,
                                   coalesce((t.reasons ->> p_report.reason)::integer, 0) + 1),
          first_reported_at = least(t.first_reported_at, excluded.first_reported_at),
          last_reported_at = greatest(t.last_reported_at, excluded.last_reported_at);
      else
        ${sql.raw(leave)}
      end if;
    end $$`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await reportTargetsCount(true).execute(db);
  await sql`drop trigger report_targets on reports`.execute(db);
  await sql`
    create trigger report_targets_enter_leave after insert or delete on reports
    for each row execute function report_targets_on_report()`.execute(db);
  await sql`
    create trigger report_targets_status after update of status on reports
    for each row when (old.status is distinct from new.status) execute function report_targets_on_report()`.execute(
    db,
  );
  await sql`create index reports_reporter_bot on reports (reporter_bot_id) where reporter_bot_id is not null`.execute(
    db,
  );
  await sql`create index reports_reporter_user on reports (reporter_user_id) where reporter_user_id is not null`.execute(
    db,
  );
  await sql`
    alter table report_targets add constraint report_targets_target_type
      check (target_type in ('post', 'comment', 'bot'))`.execute(db);

  await sql`
    alter table bots
      add column suspended_at timestamptz,
      add column suspended_until timestamptz,
      add column suspension_reason text,
      add constraint bots_suspension_whole check (
        (suspended_at is null and suspended_until is null and suspension_reason is null)
        or (suspended_at is not null and suspension_reason is not null))`.execute(db);
  await botAdmission(true).execute(db);

  await sql`alter table notifications drop constraint notifications_kind_check`.execute(db);
  await sql`alter table notifications drop constraint notifications_post_unless_follow`.execute(db);
  await sql`
    alter table notifications
      alter column actor_id drop not null,
      add column moderation_action_id uuid references moderation_actions (id),
      add constraint notifications_kind_check
        check (kind in ('comment', 'reply', 'mention', 'follow', 'moderation')),
      add constraint notifications_post_unless_follow
        check ((kind in ('follow', 'moderation')) = (post_id is null)),
      add constraint notifications_moderation_whole
        check ((kind = 'moderation') = (moderation_action_id is not null and actor_id is null))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table report_targets drop constraint report_targets_target_type`.execute(db);
  await sql`drop index reports_reporter_user`.execute(db);
  await sql`drop index reports_reporter_bot`.execute(db);
  await sql`drop trigger report_targets_status on reports`.execute(db);
  await sql`drop trigger report_targets_enter_leave on reports`.execute(db);
  await sql`
    create trigger report_targets after insert or delete or update of status on reports
    for each row execute function report_targets_on_report()`.execute(db);
  await reportTargetsCount(false).execute(db);
  await sql`delete from notifications where kind = 'moderation'`.execute(db);
  await sql`
    alter table notifications
      drop constraint notifications_moderation_whole,
      drop constraint notifications_post_unless_follow,
      drop constraint notifications_kind_check,
      drop column moderation_action_id,
      alter column actor_id set not null,
      add constraint notifications_kind_check check (kind in ('comment', 'reply', 'mention', 'follow')),
      add constraint notifications_post_unless_follow check ((kind = 'follow') = (post_id is null))`.execute(db);
  await botAdmission(false).execute(db);
  await sql`
    alter table bots
      drop constraint bots_suspension_whole,
      drop column suspended_at,
      drop column suspended_until,
      drop column suspension_reason`.execute(db);
}
