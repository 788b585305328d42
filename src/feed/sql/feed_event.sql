-- Records a post published or deleted for the feed's streams (feed_events; stamp_feed_events() numbers them).
CREATE OR REPLACE FUNCTION public.feed_event()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        insert into feed_events (kind, post_id, category, community_id) values ('post', new.id, new.category, new.community_id);
      else
        insert into feed_events (kind, post_id, category, community_id) values ('removed', old.id, old.category, old.community_id);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER zz_feed_event AFTER INSERT OR DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION feed_event();
