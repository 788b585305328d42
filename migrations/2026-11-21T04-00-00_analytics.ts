// Analytics aggregates kept by the database's own triggers, sharded and deferred to commit, so
// no write path can forget them.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/** The advisory-lock class (first key) of the analytics locks: S is (class, shard), G is (class, 16). */
const lockClass = 20_261_121;
const globalLock = 16;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table analytics_totals (
      shard smallint primary key,
      bots bigint not null default 0,
      posts bigint not null default 0,
      comments bigint not null default 0,
      votes bigint not null default 0,
      assessments bigint not null default 0
    )`.execute(db);
  // One row per UTC day and shard. A row counts the rows that exist now and were created that day:
  // removing a vote takes it off the day it was cast.
  await sql`
    create table analytics_daily (
      day date not null,
      shard smallint not null,
      posts bigint not null default 0,
      comments bigint not null default 0,
      votes bigint not null default 0,
      registrations bigint not null default 0,
      assessments bigint not null default 0,
      primary key (day, shard)
    )`.execute(db);
  await sql`
    create table analytics_types (
      type text primary key,
      bots bigint not null default 0
    )`.execute(db);
  await sql`
    create table analytics_drift (
      from_type text not null,
      to_type text not null,
      shard smallint not null,
      changes bigint not null default 0,
      primary key (from_type, to_type, shard)
    )`.execute(db);
  await sql`
    create table analytics_models (
      model text primary key,
      bots bigint not null default 0
    )`.execute(db);
  // getAnalyticsModels pages by (bots desc, model asc); negating bots makes that one ascending
  // index a row comparison can range-scan.
  await sql`create index analytics_models_by_size on analytics_models ((-bots), model) where bots > 0`.execute(db);
  await sql`
    create table analytics_model_types (
      model text not null,
      type text not null,
      bots bigint not null default 0,
      primary key (model, type)
    )`.execute(db);

  // S: the shard's lock, taken by every analytics trigger before it writes a counter row.
  await sql`
    create function analytics_lock_shard() returns smallint language plpgsql as $$
    declare
      v_shard smallint := (txid_current() % 16)::smallint;
    begin
      perform pg_advisory_xact_lock(${sql.lit(lockClass)}, v_shard);
      return v_shard;
    end $$`.execute(db);

  await sql`
    create function analytics_count(p_shard smallint, p_day date, p_bots integer, p_posts integer, p_comments integer, p_votes integer, p_assessments integer)
    returns void language plpgsql as $$
    begin
      insert into analytics_daily as d (day, shard, registrations, posts, comments, votes, assessments)
      values (p_day, p_shard, p_bots, p_posts, p_comments, p_votes, p_assessments)
      on conflict (day, shard) do update set
        registrations = d.registrations + excluded.registrations, posts = d.posts + excluded.posts,
        comments = d.comments + excluded.comments, votes = d.votes + excluded.votes,
        assessments = d.assessments + excluded.assessments;
      insert into analytics_totals as t (shard, bots, posts, comments, votes, assessments)
      values (p_shard, p_bots, p_posts, p_comments, p_votes, p_assessments)
      on conflict (shard) do update set
        bots = t.bots + excluded.bots, posts = t.posts + excluded.posts, comments = t.comments + excluded.comments,
        votes = t.votes + excluded.votes, assessments = t.assessments + excluded.assessments;
    end $$`.execute(db);

  // Posts, comments, votes and assessments: one more on the day a row was created, one fewer when it
  // goes; an UPDATE that moves created_at (or an assessment's type or drift) is both. A vote changing
  // direction changes no count and fires nothing.
  await sql`
    create function analytics_on_activity() returns trigger language plpgsql as $$
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

  // Bots: registrations (by created_at, under S), and the type and (model, type) a bot counts under
  // (under G). An update moves the bot from its old values to its new ones.
  await sql`
    create function analytics_on_bot() returns trigger language plpgsql as $$
    declare
      v_shard smallint := analytics_lock_shard();
      v_old_model text;
      v_old_type text;
      v_old integer := 0;
      v_new_model text;
      v_new_type text;
      v_new integer := 0;
    begin
      if tg_op <> 'INSERT' then v_old_model := old.model; v_old_type := old.type; v_old := -1; end if;
      if tg_op <> 'DELETE' then v_new_model := new.model; v_new_type := new.type; v_new := 1; end if;
      if tg_op <> 'INSERT' and (tg_op = 'DELETE' or old.created_at is distinct from new.created_at) then
        perform analytics_count(v_shard, (old.created_at at time zone 'UTC')::date, -1, 0, 0, 0, 0);
      end if;
      if tg_op <> 'DELETE' and (tg_op = 'INSERT' or old.created_at is distinct from new.created_at) then
        perform analytics_count(v_shard, (new.created_at at time zone 'UTC')::date, 1, 0, 0, 0, 0);
      end if;

      perform pg_advisory_xact_lock(${sql.lit(lockClass)}, ${sql.lit(globalLock)});
      insert into analytics_types as a (type, bots)
      select type, sum(delta)
      from (values (v_old_type, v_old), (v_new_type, v_new)) as moves (type, delta)
      where type is not null group by type having sum(delta) <> 0
      on conflict (type) do update set bots = a.bots + excluded.bots;
      insert into analytics_models as a (model, bots)
      select model, sum(delta)
      from (values (v_old_model, v_old), (v_new_model, v_new)) as moves (model, delta)
      where model is not null group by model having sum(delta) <> 0
      on conflict (model) do update set bots = a.bots + excluded.bots;
      insert into analytics_model_types as a (model, type, bots)
      select model, type, sum(delta)
      from (values (v_old_model, v_old_type, v_old), (v_new_model, v_new_type, v_new)) as moves (model, type, delta)
      where type is not null group by model, type having sum(delta) <> 0
      on conflict (model, type) do update set bots = a.bots + excluded.bots;
      return null;
    end $$`.execute(db);

  for (const table of ['posts', 'comments', 'votes', 'assessments']) {
    await sql`
      create constraint trigger analytics after insert or delete on ${sql.table(table)}
      deferrable initially deferred for each row execute function analytics_on_activity()`.execute(db);
  }
  for (const table of ['posts', 'comments', 'votes']) {
    await sql`
      create constraint trigger analytics_moves after update of created_at on ${sql.table(table)}
      deferrable initially deferred for each row when (old.created_at is distinct from new.created_at)
      execute function analytics_on_activity()`.execute(db);
  }
  await sql`
    create constraint trigger analytics_moves after update of created_at, type, drift_from on assessments
    deferrable initially deferred for each row
    when ((old.created_at, old.type, old.drift_from) is distinct from (new.created_at, new.type, new.drift_from))
    execute function analytics_on_activity()`.execute(db);
  await sql`
    create constraint trigger analytics after insert or delete on bots
    deferrable initially deferred for each row execute function analytics_on_bot()`.execute(db);
  await sql`
    create constraint trigger analytics_moves after update of created_at, model, type on bots
    deferrable initially deferred for each row
    when ((old.created_at, old.model, old.type) is distinct from (new.created_at, new.model, new.type))
    execute function analytics_on_bot()`.execute(db);

  // Recomputes every aggregate from the base tables, under locks that hold writers back meanwhile.
  // For this migration's backfill and for bulk loads that bypass the triggers (bench/ seeding).
  await sql`
    create function analytics_rebuild() returns void language plpgsql as $$
    begin
      -- Children first, the order in which writers lock these tables.
      lock table votes, comments, assessments, posts, bots in share mode;
      -- DELETE, not TRUNCATE: this also runs inside a TRUNCATE statement (analytics_on_truncate).
      delete from analytics_totals;
      delete from analytics_daily;
      delete from analytics_types;
      delete from analytics_drift;
      delete from analytics_models;
      delete from analytics_model_types;
      insert into analytics_daily (day, shard, registrations, posts, comments, votes, assessments)
      select day, 0, sum(registrations), sum(posts), sum(comments), sum(votes), sum(assessments) from (
        select (created_at at time zone 'UTC')::date as day, count(*) as registrations, 0 as posts, 0 as comments, 0 as votes, 0 as assessments from bots group by 1
        union all select (created_at at time zone 'UTC')::date, 0, count(*), 0, 0, 0 from posts group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, count(*), 0, 0 from comments group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, 0, count(*), 0 from votes group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, 0, 0, count(*) from assessments group by 1
      ) per_table group by day;
      insert into analytics_totals (shard, bots, posts, comments, votes, assessments)
      select 0, coalesce(sum(registrations), 0), coalesce(sum(posts), 0), coalesce(sum(comments), 0),
             coalesce(sum(votes), 0), coalesce(sum(assessments), 0)
      from analytics_daily;
      insert into analytics_types (type, bots)
      select type, count(*) from bots where type is not null group by type;
      insert into analytics_drift (from_type, to_type, shard, changes)
      select drift_from, type, 0, count(*) from assessments where drift_from is not null group by drift_from, type;
      insert into analytics_models (model, bots) select model, count(*) from bots group by model;
      insert into analytics_model_types (model, type, bots)
      select model, type, count(*) from bots where type is not null group by model, type;
    end $$`.execute(db);
  await sql`select analytics_rebuild()`.execute(db);

  // A TRUNCATE fires no row triggers: recount from what is left.
  await sql`
    create function analytics_on_truncate() returns trigger language plpgsql as $$
    begin
      perform analytics_rebuild();
      return null;
    end $$`.execute(db);
  for (const table of ['bots', 'posts', 'comments', 'votes', 'assessments']) {
    await sql`create trigger analytics_truncate after truncate on ${sql.table(table)} for each statement execute function analytics_on_truncate()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['posts', 'comments', 'votes', 'assessments', 'bots']) {
    await sql`drop trigger analytics on ${sql.table(table)}`.execute(db);
    await sql`drop trigger analytics_moves on ${sql.table(table)}`.execute(db);
    await sql`drop trigger analytics_truncate on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function analytics_on_truncate, analytics_rebuild, analytics_on_bot, analytics_on_activity, analytics_count, analytics_lock_shard`.execute(db);
  await sql`drop table analytics_totals, analytics_daily, analytics_types, analytics_drift, analytics_models, analytics_model_types`.execute(db);
}
