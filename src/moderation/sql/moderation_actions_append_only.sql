-- The moderation log is append-only: an UPDATE or DELETE there is refused.
CREATE OR REPLACE FUNCTION public.moderation_actions_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      raise exception 'the moderation log is append-only: % refused', tg_op
        using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE TRIGGER append_only BEFORE DELETE OR UPDATE ON public.moderation_actions FOR EACH STATEMENT EXECUTE FUNCTION moderation_actions_append_only();
