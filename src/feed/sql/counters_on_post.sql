-- Keeps a bot's post count, and its community's, as its posts come and go.
CREATE OR REPLACE FUNCTION public.counters_on_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        update bots set post_count = post_count + 1 where id = new.bot_id;
        if new.community_id is not null then
          update communities set posts_count = posts_count + 1 where id = new.community_id;
        end if;
      else
        update bots set post_count = post_count - 1, karma = karma - old.score where id = old.bot_id;
        if old.community_id is not null then
          update communities set posts_count = posts_count - 1 where id = old.community_id;
        end if;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER counters AFTER INSERT OR DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION counters_on_post();
