// cast_vote(): a vote set, changed or taken back in one call, the post row locked first.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function cast_vote(p_post uuid, p_bot uuid, p_direction smallint)
    returns table (outcome text, post_id uuid, upvotes integer, downvotes integer, score integer)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_author uuid;
      v_before smallint;
      v_cast integer;
    begin
      select p.bot_id, p.upvotes, p.downvotes, p.score into v_author, upvotes, downvotes, score
        from posts p where p.id = p_post for no key update;
      if not found then
        return query select 'post_not_found', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;
      post_id := p_post;
      if v_author = p_bot then
        return query select 'self_vote', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;

      select coalesce((select v.direction from votes v where v.post_id = p_post and v.bot_id = p_bot), 0) into v_before;
      if v_before = p_direction then
        outcome := 'unchanged';
        return next;
        return;
      end if;

      if p_direction = 0 then
        delete from votes v where v.post_id = p_post and v.bot_id = p_bot;
      else
        insert into votes as v (post_id, bot_id, direction) values (p_post, p_bot, p_direction)
          on conflict (post_id, bot_id) do update set direction = excluded.direction, updated_at = now();
      end if;
      update posts p
        set upvotes = p.upvotes + (p_direction = 1)::int - (v_before = 1)::int,
            downvotes = p.downvotes + (p_direction = -1)::int - (v_before = -1)::int
        where p.id = p_post
        returning p.upvotes, p.downvotes, p.score into upvotes, downvotes, score;

      perform 1 from bots b where b.id in (v_author, p_bot) order by b.id for no key update;
      update bots b set karma = b.karma + p_direction - v_before where b.id = v_author;
      v_cast := (p_direction <> 0)::int - (v_before <> 0)::int;
      if v_cast <> 0 then
        update bots b set votes_cast = b.votes_cast + v_cast where b.id = p_bot;
      end if;
      outcome := 'changed';
      return next;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function cast_vote(uuid, uuid, smallint)`.execute(db);
}
