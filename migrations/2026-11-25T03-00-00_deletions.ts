// Bots delete what they wrote, and every counter and analytics figure stays equal to a recount
// of what remains.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table comments
      add column deleted_at timestamptz,
      alter column bot_id drop not null,
      alter column body drop not null,
      add constraint comments_tombstone_empty check (
        (deleted_at is null and bot_id is not null and body is not null)
        or (deleted_at is not null and bot_id is null and body is null))`.execute(db);
  await sql`create index comments_parent_id on comments (parent_id) where parent_id is not null`.execute(db);

  // Counters and analytics: a live comment counts once; becoming a tombstone is its removal (the
  // analytics loop takes the old row out and puts the new one in, and a tombstone is never in).
  await countersOnComment(db, { skipTombstones: true });
  await sql`
    create trigger counters_tombstone after update of deleted_at on comments
    for each row when (old.deleted_at is null and new.deleted_at is not null)
    execute function counters_on_comment()`.execute(db);
  await analyticsOnActivity(db, { skipTombstones: true });
  await sql`
    create constraint trigger analytics_tombstone after update of deleted_at on comments
    deferrable initially deferred for each row
    when (old.deleted_at is null and new.deleted_at is not null)
    execute function analytics_on_activity()`.execute(db);

  // The rebuild counts every comment row; it now takes the tombstones out again.
  await sql`alter function analytics_rebuild() rename to analytics_rebuild_with_tombstones`.execute(db);
  await sql`
    create function analytics_rebuild() returns void language plpgsql as $$
    declare
      v_day record;
    begin
      perform analytics_rebuild_with_tombstones();
      for v_day in
        select (created_at at time zone 'UTC')::date as day, count(*)::integer as tombstones
        from comments where deleted_at is not null group by 1
      loop
        perform analytics_count(0::smallint, v_day.day, 0, 0, -v_day.tombstones, 0, 0);
      end loop;
    end $$`.execute(db);

  // A tombstone goes with its last reply. Two replies deleted at once cannot both keep it: each
  // deletion's `counters` trigger (which fires first: triggers fire in name order) updates the
  // post's row, so the second waits for the first to commit, and then sees it in this trigger's
  // statement (a fresh snapshot under read committed).
  await sql`
    create function comments_remove_bare_tombstone() returns trigger language plpgsql as $$
    begin
      if old.parent_id is not null then
        delete from comments c
        where c.id = old.parent_id and c.deleted_at is not null
          and not exists (select 1 from comments r where r.parent_id = c.id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger remove_bare_tombstone after delete on comments
    for each row execute function comments_remove_bare_tombstone()`.execute(db);

  // Names, for ever.
  await sql`
    create table bot_names (
      name_lower text primary key,
      registered_at timestamptz not null default now()
    )`.execute(db);
  await sql`insert into bot_names (name_lower) select lower(name) from bots`.execute(db);
  await sql`
    create function bots_claim_name() returns trigger language plpgsql as $$
    begin
      insert into bot_names (name_lower) values (lower(new.name)) on conflict do nothing;
      if not found then
        return null;
      end if;
      return new;
    end $$`.execute(db);
  // Registration inserts with ON CONFLICT DO NOTHING and reads "no row" as "name taken": a name
  // already in bot_names skips the insert the same way.
  await sql`
    create trigger claim_name before insert on bots
    for each row execute function bots_claim_name()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger claim_name on bots`.execute(db);
  await sql`drop function bots_claim_name()`.execute(db);
  await sql`drop table bot_names`.execute(db);
  await sql`drop trigger remove_bare_tombstone on comments`.execute(db);
  await sql`drop function comments_remove_bare_tombstone()`.execute(db);
  await sql`drop function analytics_rebuild()`.execute(db);
  await sql`alter function analytics_rebuild_with_tombstones() rename to analytics_rebuild`.execute(db);
  await sql`drop trigger analytics_tombstone on comments`.execute(db);
  await sql`drop trigger counters_tombstone on comments`.execute(db);
  await countersOnComment(db, { skipTombstones: false });
  await analyticsOnActivity(db, { skipTombstones: false });
  await sql`delete from comments where deleted_at is not null`.execute(db);
  await sql`drop index comments_parent_id`.execute(db);
  await sql`
    alter table comments
      drop constraint comments_tombstone_empty,
      alter column body set not null,
      alter column bot_id set not null,
      drop column deleted_at`.execute(db);
}

/** The comment counters' trigger function, as the counters-by-triggers migration made it, or skipping tombstones. */
async function countersOnComment(db: Kysely<any>, { skipTombstones }: { skipTombstones: boolean }) {
  await sql`
    create or replace function counters_on_comment() returns trigger language plpgsql as $$
    declare
      v_row comments%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      ${skipTombstones ? sql`if v_row.deleted_at is not null then return null; end if;` : sql``}
      update posts set comment_count = comment_count + v_step where id = v_row.post_id;
      update bots set comment_count = comment_count + v_step where id = v_row.bot_id;
      return null;
    end $$`.execute(db);
}

/** The analytics' activity trigger function, as the analytics migration made it, or skipping tombstones. */
async function analyticsOnActivity(db: Kysely<any>, { skipTombstones }: { skipTombstones: boolean }) {
  await sql`
    create or replace function analytics_on_activity() returns trigger language plpgsql as $$
    declare
      v_shard smallint := analytics_lock_shard();
      v_row record;
      v_sign integer;
    begin
      foreach v_sign in array array[-1, 1] loop
        if v_sign = -1 and tg_op <> 'INSERT' then v_row := old;
        elsif v_sign = 1 and tg_op <> 'DELETE' then v_row := new;
        else continue;
        end if;
        ${
          skipTombstones
            ? sql`if tg_table_name = 'comments' then
          if v_row.deleted_at is not null then continue; end if;
        end if;`
            : sql``
        }
        perform analytics_count(v_shard, (v_row.created_at at time zone 'UTC')::date, 0,
          case when tg_table_name = 'posts' then v_sign else 0 end,
          case when tg_table_name = 'comments' then v_sign else 0 end,
          case when tg_table_name = 'votes' then v_sign else 0 end,
          case when tg_table_name = 'assessments' then v_sign else 0 end);
        if tg_table_name = 'assessments' then
          if v_row.drift_from is not null then
            insert into analytics_drift as a (from_type, to_type, shard, changes)
            values (v_row.drift_from, v_row.type, v_shard, v_sign)
            on conflict (from_type, to_type, shard) do update set changes = a.changes + excluded.changes;
          end if;
        end if;
      end loop;
      return null;
    end $$`.execute(db);
}
