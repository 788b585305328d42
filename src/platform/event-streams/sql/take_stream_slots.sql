-- Takes a stream's slot of every holder (the bot, the address) at once or none, across instances.
CREATE OR REPLACE FUNCTION public.take_stream_slots(p_id uuid, p_holders text[], p_maxes integer[], p_instance uuid, p_lapse_ms integer)
 RETURNS TABLE(full_holder text, retry_after_ms integer)
 LANGUAGE plpgsql
AS $function$
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
    end $function$;
