-- Numbers the feed's events not numbered yet, in order, one caller at a time (the feed's upkeep).
CREATE OR REPLACE FUNCTION public.stamp_feed_events()
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
    declare
      v_base bigint;
      v_count bigint;
    begin
      perform pg_advisory_xact_lock(hashtextextended('stamp_feed_events', 0));
      select coalesce((select last_seq from feed_sequence), 0) into v_base;
      with due as (
        select id, v_base + row_number() over (order by id) as seq
        from (select id from feed_events where seq is null order by id limit 10000) unnumbered)
      update feed_events e set seq = due.seq from due where e.id = due.id;
      get diagnostics v_count = row_count;
      if v_count = 0 then
        return v_base;
      end if;
      insert into feed_sequence (single, last_seq) values (true, v_base + v_count)
      on conflict (single) do update set last_seq = excluded.last_seq;
      perform pg_notify('bot_platform_events', 'feed ' || (v_base + v_count));
      return v_base + v_count;
    end $function$;
