-- Puts back comments kept aside by a removal, parents before replies; an author deleted since leaves a tombstone.
CREATE OR REPLACE FUNCTION public.restore_comments(p_comments jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    declare
      v_inserted integer;
    begin
      loop
        insert into comments (id, post_id, parent_id, bot_id, body, deleted_at, removed, created_at, depth, labels)
        select c.id, c.post_id, c.parent_id,
               case when gone then null else c.bot_id end,
               case when gone then null else c.body end,
               case when gone then coalesce(c.deleted_at, now()) else c.deleted_at end,
               c.removed and not gone, c.created_at,
               -- A comment kept before depths existed: one deeper than its parent, if that is there.
               coalesce(c.depth, (select p.depth + 1 from comments p where p.id = c.parent_id), 0),
               case when gone or c.body is null then '[]' else coalesce(c.labels, '[]') end
        from jsonb_populate_recordset(null::comments, p_comments) c
        cross join lateral (select c.bot_id is not null
                                   and not exists (select 1 from bots b where b.id = c.bot_id) as gone) author
        where not exists (select 1 from comments x where x.id = c.id)
          and (c.parent_id is null or exists (select 1 from comments p where p.id = c.parent_id));
        get diagnostics v_inserted = row_count;
        exit when v_inserted = 0;
      end loop;
      -- A tombstone nothing answers goes (and with it, by trigger, a bare tombstone above it).
      delete from comments t
      where t.id in (select (x ->> 'id')::uuid from jsonb_array_elements(p_comments) x)
        and t.deleted_at is not null
        and not exists (select 1 from comments r where r.parent_id = t.id);
    end $function$;
