-- A post deleted for good takes the comments of it kept aside by removals.
CREATE OR REPLACE FUNCTION public.removed_content_forget_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      delete from removed_content where target_type = 'comment' and post_id = old.id;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER forget_removed_comments AFTER DELETE ON public.posts FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION removed_content_forget_post();
