// What bots written for the published platform send and read, and the creators' own test.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/** The analytics migration's advisory-lock class and global lock G. */
const lockClass = 20_261_121;
const globalLock = 16;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table bots
      add column moltbook_handle text check (moltbook_handle ~ '^[A-Za-z0-9._-]{1,40}$'),
      add column owner_x_handle text check (owner_x_handle ~ '^[A-Za-z0-9_]{1,15}$'),
      add column assessment_id uuid references assessments (id) on delete set null,
      add column creator_guess_type text,
      add column creator_type text`.execute(db);
  // `/api/bots/me` is the calling bot, so no bot may be called me. Rows from before are left alone.
  await sql`alter table bots add constraint bots_name_not_me check (lower(name) <> 'me') not valid`.execute(db);
  await sql`
    alter table assessments
      add column creator_guess_type text,
      add column accuracy_rating smallint check (accuracy_rating between 1 and 5),
      add column accuracy_comment text check (char_length(accuracy_comment) <= 500),
      add column rated_at timestamptz,
      add constraint assessments_rating_complete check ((accuracy_rating is null) = (rated_at is null))`.execute(db);
  // Bots typed before this migration point at their newest result.
  await sql`
    update bots set assessment_id = (
      select a.id from assessments a where a.bot_id = bots.id order by a.created_at desc, a.id desc limit 1
    ) where assessment_count > 0`.execute(db);

  await sql`alter table creators add column type text`.execute(db);
  await sql`
    create table creator_assessments (
      id uuid primary key default gen_random_uuid(),
      user_id uuid not null references creators (user_id) on delete cascade,
      version integer not null,
      answers jsonb not null,
      type text not null,
      secondary_type text not null,
      traits jsonb not null,
      confidence integer not null check (confidence between 0 and 100),
      created_at timestamptz not null default date_trunc('milliseconds', now())
    )`.execute(db);
  await sql`create index creator_assessments_user_id on creator_assessments (user_id, created_at)`.execute(db);

  // bots.creator_type is always the type of the creator who claimed the bot: computed whenever the
  // claim (or the column itself) is written, and pushed to a creator's bots when their type changes.
  // FOR SHARE makes a claim and the creator's new type wait for each other: read without a lock, a
  // claim could read the old type while the new one is written, and the push would miss the bot
  // (not yet the creator's when it looked).
  await sql`
    create function bots_creator_type() returns trigger language plpgsql as $$
    begin
      select c.type into new.creator_type from creators c where c.user_id = new.creator_user_id for share;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger creator_type before insert or update of creator_user_id, creator_type on bots
    for each row execute function bots_creator_type()`.execute(db);
  await sql`
    create function creators_type_to_bots() returns trigger language plpgsql as $$
    begin
      update bots set creator_type = new.type where creator_user_id = new.user_id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger bots_creator_type after update of type on creators
    for each row when (old.type is distinct from new.type) execute function creators_type_to_bots()`.execute(db);

  await sql`
    create table analytics_creator_types (
      type text primary key,
      creators bigint not null default 0
    )`.execute(db);
  // Claimed bots that guessed, per (their creator's current type, their latest guess).
  await sql`
    create table analytics_guesses (
      creator_type text not null,
      guess_type text not null,
      bots bigint not null default 0,
      primary key (creator_type, guess_type)
    )`.execute(db);
  // Rated assessments per result type, in 16 shards like the other activity figures.
  await sql`
    create table analytics_ratings (
      type text not null,
      shard smallint not null,
      ratings bigint not null default 0,
      rating_sum bigint not null default 0,
      primary key (type, shard)
    )`.execute(db);

  // Creators per type (under S, then G: the rows are not sharded). Each trigger below returns before
  // taking any lock when it has nothing to count, so a new creator without a type, a registration or
  // an unrated result never waits on G (or S) for them.
  await sql`
    create function analytics_on_creator_type() returns trigger language plpgsql as $$
    declare
      v_old text;
      v_new text;
    begin
      if tg_op <> 'INSERT' then v_old := old.type; end if;
      if tg_op <> 'DELETE' then v_new := new.type; end if;
      if v_old is not distinct from v_new then return null; end if;
      perform analytics_lock_shard();
      perform pg_advisory_xact_lock(${sql.lit(lockClass)}, ${sql.lit(globalLock)});
      insert into analytics_creator_types as a (type, creators)
      select type, sum(delta) from (values (v_old, -1), (v_new, 1)) as moves (type, delta)
      where type is not null group by type having sum(delta) <> 0
      on conflict (type) do update set creators = a.creators + excluded.creators;
      return null;
    end $$`.execute(db);
  await sql`
    create constraint trigger analytics_types after insert or delete on creators
    deferrable initially deferred for each row execute function analytics_on_creator_type()`.execute(db);
  await sql`
    create constraint trigger analytics_types_moves after update of type on creators
    deferrable initially deferred for each row when (old.type is distinct from new.type)
    execute function analytics_on_creator_type()`.execute(db);

  // Guesses: a bot row counts under (creator_type, creator_guess_type) when both are set (under S, then G).
  await sql`
    create function analytics_on_guess() returns trigger language plpgsql as $$
    declare
      v_old_creator text;
      v_old_guess text;
      v_new_creator text;
      v_new_guess text;
    begin
      if tg_op <> 'INSERT' then v_old_creator := old.creator_type; v_old_guess := old.creator_guess_type; end if;
      if tg_op <> 'DELETE' then v_new_creator := new.creator_type; v_new_guess := new.creator_guess_type; end if;
      if (v_old_creator is null or v_old_guess is null) and (v_new_creator is null or v_new_guess is null) then return null; end if;
      perform analytics_lock_shard();
      perform pg_advisory_xact_lock(${sql.lit(lockClass)}, ${sql.lit(globalLock)});
      insert into analytics_guesses as a (creator_type, guess_type, bots)
      select creator_type, guess_type, sum(delta)
      from (values (v_old_creator, v_old_guess, -1), (v_new_creator, v_new_guess, 1)) as moves (creator_type, guess_type, delta)
      where creator_type is not null and guess_type is not null
      group by creator_type, guess_type having sum(delta) <> 0
      on conflict (creator_type, guess_type) do update set bots = a.bots + excluded.bots;
      return null;
    end $$`.execute(db);
  await sql`
    create constraint trigger analytics_guesses after insert or delete on bots
    deferrable initially deferred for each row execute function analytics_on_guess()`.execute(db);
  // creator_user_id is listed because a claim changes creator_type through the BEFORE trigger, and
  // column lists only see the columns an UPDATE names.
  await sql`
    create constraint trigger analytics_guesses_moves after update of creator_user_id, creator_type, creator_guess_type on bots
    deferrable initially deferred for each row
    when ((old.creator_type, old.creator_guess_type) is distinct from (new.creator_type, new.creator_guess_type))
    execute function analytics_on_guess()`.execute(db);

  // Ratings: a rated assessment counts under its type (under S only: the rows are sharded).
  await sql`
    create function analytics_on_rating() returns trigger language plpgsql as $$
    declare
      v_shard smallint;
      v_old_type text;
      v_old_rating integer;
      v_new_type text;
      v_new_rating integer;
    begin
      if tg_op <> 'INSERT' then v_old_type := old.type; v_old_rating := old.accuracy_rating; end if;
      if tg_op <> 'DELETE' then v_new_type := new.type; v_new_rating := new.accuracy_rating; end if;
      if v_old_rating is null and v_new_rating is null then return null; end if;
      v_shard := analytics_lock_shard();
      insert into analytics_ratings as a (type, shard, ratings, rating_sum)
      select type, v_shard, sum(delta), sum(delta * rating)
      from (values (v_old_type, v_old_rating, -1), (v_new_type, v_new_rating, 1)) as moves (type, rating, delta)
      where rating is not null group by type having sum(delta) <> 0 or sum(delta * rating) <> 0
      on conflict (type, shard) do update set ratings = a.ratings + excluded.ratings, rating_sum = a.rating_sum + excluded.rating_sum;
      return null;
    end $$`.execute(db);
  await sql`
    create constraint trigger analytics_ratings after insert or delete on assessments
    deferrable initially deferred for each row execute function analytics_on_rating()`.execute(db);
  await sql`
    create constraint trigger analytics_ratings_moves after update of type, accuracy_rating on assessments
    deferrable initially deferred for each row
    when ((old.type, old.accuracy_rating) is distinct from (new.type, new.accuracy_rating))
    execute function analytics_on_rating()`.execute(db);

  // analytics_rebuild() learns the new aggregates; the tables they read are locked by the one it wraps.
  await sql`alter function analytics_rebuild() rename to analytics_rebuild_without_guesses`.execute(db);
  await sql`
    create function analytics_rebuild() returns void language plpgsql as $$
    begin
      perform analytics_rebuild_without_guesses();
      delete from analytics_creator_types;
      delete from analytics_guesses;
      delete from analytics_ratings;
      insert into analytics_creator_types (type, creators)
      select type, count(*) from creators where type is not null group by type;
      insert into analytics_guesses (creator_type, guess_type, bots)
      select creator_type, creator_guess_type, count(*) from bots
      where creator_type is not null and creator_guess_type is not null group by creator_type, creator_guess_type;
      insert into analytics_ratings (type, shard, ratings, rating_sum)
      select type, 0, count(*), sum(accuracy_rating) from assessments where accuracy_rating is not null group by type;
    end $$`.execute(db);
  await sql`select analytics_rebuild()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function analytics_rebuild()`.execute(db);
  await sql`alter function analytics_rebuild_without_guesses() rename to analytics_rebuild`.execute(db);
  await sql`drop trigger analytics_ratings on assessments`.execute(db);
  await sql`drop trigger analytics_ratings_moves on assessments`.execute(db);
  await sql`drop trigger analytics_guesses on bots`.execute(db);
  await sql`drop trigger analytics_guesses_moves on bots`.execute(db);
  await sql`drop trigger analytics_types on creators`.execute(db);
  await sql`drop trigger analytics_types_moves on creators`.execute(db);
  await sql`drop function analytics_on_rating, analytics_on_guess, analytics_on_creator_type`.execute(db);
  await sql`drop table analytics_ratings, analytics_guesses, analytics_creator_types`.execute(db);
  await sql`drop trigger bots_creator_type on creators`.execute(db);
  await sql`drop trigger creator_type on bots`.execute(db);
  await sql`drop function creators_type_to_bots, bots_creator_type`.execute(db);
  await sql`drop table creator_assessments`.execute(db);
  await sql`alter table creators drop column type`.execute(db);
  await sql`
    alter table assessments
      drop constraint assessments_rating_complete,
      drop column rated_at, drop column accuracy_comment, drop column accuracy_rating, drop column creator_guess_type`.execute(db);
  await sql`
    alter table bots
      drop constraint bots_name_not_me,
      drop column creator_type, drop column creator_guess_type, drop column assessment_id,
      drop column owner_x_handle, drop column moltbook_handle`.execute(db);
}
