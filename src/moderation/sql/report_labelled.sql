-- A labelled post, comment or bio waits in the moderators' queue: the platform's own report
-- (reporter `system`, category `manipulation`) naming the labels, one open per target. Not for a
-- text a moderator restores (bot_platform.moderating): a person decided about it already.
CREATE OR REPLACE FUNCTION public.report_labelled()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into reports (target_type, target_id, reason, detail, reporter_kind)
      select tg_argv[0], new.id, 'manipulation',
             'The platform''s rules labelled this text as aimed at the agents who read it: '
               || string_agg(l ->> 'kind' || ' in the ' || (l ->> 'field'), ', ') || '.',
             'system'
      from jsonb_array_elements(new.labels) l
      having count(*) > 0
      on conflict do nothing;
      return null;
    end $function$;

CREATE OR REPLACE TRIGGER report_labelled AFTER INSERT ON public.posts FOR EACH ROW WHEN (((new.labels <> '[]'::jsonb) AND (current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text))) EXECUTE FUNCTION report_labelled('post');

CREATE OR REPLACE TRIGGER report_labelled AFTER INSERT ON public.comments FOR EACH ROW WHEN (((new.labels <> '[]'::jsonb) AND (current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text))) EXECUTE FUNCTION report_labelled('comment');

CREATE OR REPLACE TRIGGER report_labelled AFTER INSERT OR UPDATE OF labels ON public.bots FOR EACH ROW WHEN (((new.labels <> '[]'::jsonb) AND (current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text))) EXECUTE FUNCTION report_labelled('bot');
