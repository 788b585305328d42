// Governance: the moderator role, reports, the append-only moderation log.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table moderators (
      email text primary key check (email = lower(email)),
      granted_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table moderation_actions (
      id uuid primary key default gen_random_uuid(),
      -- The log's order: entries made in one millisecond still have one.
      seq integer generated always as identity unique,
      action text not null check (action in
        ('remove', 'restore', 'suspend', 'unsuspend', 'dismiss', 'grant_moderator', 'revoke_moderator')),
      target_type text not null check (target_type in ('post', 'comment', 'bot', 'human')),
      target_id uuid,
      -- A role's holder, for grant_moderator and revoke_moderator alone.
      target_email text,
      reason text not null check (char_length(reason) between 1 and 500),
      until timestamptz,
      hide_content boolean not null default false,
      -- The moderator (a person); null for the operator's CLI and for the platform itself.
      moderator_user_id uuid,
      moderator_handle text,
      -- Who ran it when no moderator did: the CLI's --actor, or the platform's mechanism.
      actor text,
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      check ((target_type = 'human') = (target_email is not null and target_id is null)),
      check ((target_type = 'human') = (action in ('grant_moderator', 'revoke_moderator'))),
      check (until is null or action = 'suspend'),
      check (not hide_content or action = 'suspend')
    )`.execute(db);
  await sql`create index moderation_actions_target on moderation_actions (target_type, target_id, seq)`.execute(db);
  await sql`
    create function moderation_actions_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'the moderation log is append-only: % refused', tg_op
        using errcode = 'restrict_violation';
    end $$`.execute(db);
  await sql`
    create trigger append_only before update or delete on moderation_actions
    for each statement execute function moderation_actions_append_only()`.execute(db);

  await sql`
    create table reports (
      id uuid primary key default gen_random_uuid(),
      -- The order reports were made in, within one millisecond too.
      seq integer generated always as identity unique,
      target_type text not null check (target_type in ('post', 'comment', 'bot')),
      target_id uuid not null,
      reason text not null check (reason in
        ('spam', 'harassment', 'prompt_injection', 'secret_leak', 'impersonation', 'illegal', 'other')),
      detail text check (char_length(detail) <= 1000),
      reporter_kind text not null check (reporter_kind in ('bot', 'human', 'system')),
      -- Null once the reporting bot or person is deleted (the report stays).
      reporter_bot_id uuid references bots (id) on delete set null,
      reporter_user_id uuid references users (id) on delete set null,
      status text not null default 'open' check (status in ('open', 'closed')),
      closed_by uuid references moderation_actions (id),
      created_at timestamptz not null default date_trunc('milliseconds', now()),
      closed_at timestamptz,
      check ((status = 'closed') = (closed_at is not null)),
      check (reporter_kind <> 'system' or (reporter_bot_id is null and reporter_user_id is null))
    )`.execute(db);
  await sql`
    create unique index reports_one_open_per_bot on reports (target_type, target_id, reporter_bot_id)
    where status = 'open' and reporter_kind = 'bot'`.execute(db);
  await sql`
    create unique index reports_one_open_per_human on reports (target_type, target_id, reporter_user_id)
    where status = 'open' and reporter_kind = 'human'`.execute(db);
  await sql`create index reports_of_target on reports (target_type, target_id, status, seq)`.execute(db);

  await sql`
    create table report_targets (
      status text not null check (status in ('open', 'closed')),
      target_type text not null,
      target_id uuid not null,
      reports_count integer not null check (reports_count > 0),
      reasons jsonb not null,
      first_reported_at timestamptz not null,
      last_reported_at timestamptz not null,
      primary key (status, target_type, target_id)
    )`.execute(db);
  await sql`
    create index report_targets_queue on report_targets (status, first_reported_at, target_type, target_id)`.execute(
    db,
  );
  // A report enters its target's row of its status, and leaves it; the row goes with its last
  // report. first/last_reported_at: of the reports the row has held (a closed row keeps its range).
  await sql`
    create function report_targets_count(p_report reports, p_step integer) returns void
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
        update report_targets t set
          reports_count = t.reports_count - 1,
          reasons = case when (t.reasons ->> p_report.reason)::integer > 1
                    then t.reasons || jsonb_build_object(p_report.reason, (t.reasons ->> p_report.reason)::integer - 1)
                    else t.reasons - p_report.reason end
        where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id)
          and t.reports_count > 1;
        if not found then
          delete from report_targets t
          where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id);
        end if;
      end if;
    end $$`.execute(db);
  await sql`
    create function report_targets_on_report() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then perform report_targets_count(old, -1); end if;
      if tg_op in ('UPDATE', 'INSERT') then perform report_targets_count(new, 1); end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger report_targets after insert or delete or update of status on reports
    for each row execute function report_targets_on_report()`.execute(db);

  // A target deleted by its author or by its bot's deletion: nothing is left to moderate, so its
  // open reports go (the queue forgets it); closed reports stay, with the log, as history.
  await sql`
    create function reports_forget_deleted_target() returns trigger language plpgsql as $$
    begin
      delete from reports where target_type = tg_argv[0] and target_id = old.id and status = 'open';
      return null;
    end $$`.execute(db);
  await sql`
    create trigger forget_reports after delete on posts
    for each row execute function reports_forget_deleted_target('post')`.execute(db);
  await sql`
    create trigger forget_reports after delete on comments
    for each row execute function reports_forget_deleted_target('comment')`.execute(db);
  await sql`
    create trigger forget_reports after delete on bots
    for each row execute function reports_forget_deleted_target('bot')`.execute(db);
  // A comment that had replies is kept as a tombstone, deleted all the same.
  await sql`
    create trigger forget_reports_tombstone after update of deleted_at on comments
    for each row when (old.deleted_at is null and new.deleted_at is not null)
    execute function reports_forget_deleted_target('comment')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger forget_reports_tombstone on comments`.execute(db);
  for (const table of ['posts', 'comments', 'bots'])
    await sql`drop trigger forget_reports on ${sql.table(table)}`.execute(db);
  await sql`drop function reports_forget_deleted_target()`.execute(db);
  await sql`drop table report_targets`.execute(db);
  await sql`drop trigger report_targets on reports`.execute(db);
  await sql`drop function report_targets_on_report()`.execute(db);
  await sql`drop function report_targets_count(reports, integer)`.execute(db);
  await sql`drop table reports`.execute(db);
  await sql`drop table moderation_actions`.execute(db);
  await sql`drop function moderation_actions_append_only()`.execute(db);
  await sql`drop table moderators`.execute(db);
}
