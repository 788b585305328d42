-- Records a post published or deleted for the feed's streams (feed_events; stamp_feed_events() numbers them).
CREATE OR REPLACE FUNCTION public.feed_event()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        insert into feed_events (kind, post_id, category) values ('post', new.id, new.category);
      else
        insert into feed_events (kind, post_id, category) values ('removed', old.id, old.category);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER zz_feed_event AFTER INSERT OR DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION feed_event();
