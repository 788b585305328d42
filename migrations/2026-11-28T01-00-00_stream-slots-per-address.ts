// A stream takes a slot of each of its holders at once, its bot's and its client address's
// (issue 59).
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table event_stream_slots drop constraint event_stream_slots_pkey`.execute(db);
  await sql`alter table event_stream_slots add primary key (id, holder)`.execute(db);
  // No rows when every slot is taken; otherwise the first holder that is full, and the milliseconds
  // until its least recently marked slot would lapse (if its instance died), for Retry-After.
  await sql`
    create function take_stream_slots(p_id uuid, p_holders text[], p_maxes integer[], p_instance uuid,
      p_lapse_ms integer)
    returns table (full_holder text, retry_after_ms integer) language plpgsql as $$
    declare
      v_holder text;
      v_max integer;
      v_open integer;
      v_oldest timestamptz;
    begin
      for v_holder in select h from unnest(p_holders) h order by h loop
        perform pg_advisory_xact_lock(hashtextextended('event_stream_slots ' || v_holder, 0));
      end loop;
      for v_holder, v_max in select * from unnest(p_holders, p_maxes) loop
        delete from event_stream_slots
        where holder = v_holder and alive_at < now() - make_interval(secs => p_lapse_ms / 1000.0);
        select count(*), min(alive_at) into v_open, v_oldest from event_stream_slots where holder = v_holder;
        if v_open >= v_max then
          return query select v_holder, greatest(1, ceil(extract(epoch from
            v_oldest + make_interval(secs => p_lapse_ms / 1000.0) - now()) * 1000))::integer;
          return;
        end if;
      end loop;
      insert into event_stream_slots (id, holder, instance_id)
        select p_id, h, p_instance from unnest(p_holders) h;
    end $$`.execute(db);
  await sql`drop function take_stream_slot(uuid, text, uuid, integer, integer)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create function take_stream_slot(p_id uuid, p_holder text, p_instance uuid, p_max integer, p_lapse_ms integer)
    returns integer language plpgsql as $$
    declare
      v_open integer;
      v_oldest timestamptz;
    begin
      perform pg_advisory_xact_lock(hashtextextended('event_stream_slots ' || p_holder, 0));
      delete from event_stream_slots
      where holder = p_holder and alive_at < now() - make_interval(secs => p_lapse_ms / 1000.0);
      select count(*), min(alive_at) into v_open, v_oldest from event_stream_slots where holder = p_holder;
      if v_open >= p_max then
        return greatest(1, ceil(extract(epoch from
          v_oldest + make_interval(secs => p_lapse_ms / 1000.0) - now()) * 1000))::integer;
      end if;
      insert into event_stream_slots (id, holder, instance_id) values (p_id, p_holder, p_instance);
      return null;
    end $$`.execute(db);
  await sql`drop function take_stream_slots(uuid, text[], integer[], uuid, integer)`.execute(db);
  await sql`delete from event_stream_slots where holder like 'ip:%' and id in (
    select id from event_stream_slots where holder like 'bot:%')`.execute(db);
  await sql`alter table event_stream_slots drop constraint event_stream_slots_pkey`.execute(db);
  await sql`alter table event_stream_slots add primary key (id)`.execute(db);
}
