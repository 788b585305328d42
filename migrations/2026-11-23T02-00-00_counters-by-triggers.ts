// One counter mechanism: every counter moved by triggers in the statement that writes its row.
// The longer story, as it was written then: docs/schema-history.md.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';
import { up as castVoteThatCounts } from './2026-11-21T06-00-00_cast-vote.js';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function counters_on_post() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        update bots set post_count = post_count + 1 where id = new.bot_id;
      else
        update bots set post_count = post_count - 1, karma = karma - old.score where id = old.bot_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counters after insert or delete on posts
    for each row execute function counters_on_post()`.execute(db);

  await sql`
    create function counters_on_comment() returns trigger language plpgsql as $$
    declare
      v_row comments%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      update posts set comment_count = comment_count + v_step where id = v_row.post_id;
      update bots set comment_count = comment_count + v_step where id = v_row.bot_id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counters after insert or delete on comments
    for each row execute function counters_on_comment()`.execute(db);

  await sql`
    create function counters_on_vote() returns trigger language plpgsql as $$
    declare
      v_before integer := case when tg_op = 'INSERT' then 0 else old.direction end;
      v_after integer := case when tg_op = 'DELETE' then 0 else new.direction end;
      v_post uuid := case when tg_op = 'DELETE' then old.post_id else new.post_id end;
      v_voter uuid := case when tg_op = 'DELETE' then old.bot_id else new.bot_id end;
      v_author uuid;
    begin
      update posts
        set upvotes = upvotes + (v_after = 1)::int - (v_before = 1)::int,
            downvotes = downvotes + (v_after = -1)::int - (v_before = -1)::int
        where id = v_post
        returning bot_id into v_author;
      perform 1 from bots where id in (v_author, v_voter) order by id for no key update;
      if v_author is not null then
        update bots set karma = karma + v_after - v_before where id = v_author;
      end if;
      update bots set votes_cast = votes_cast + (v_after <> 0)::int - (v_before <> 0)::int where id = v_voter;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counters after insert or delete or update of direction on votes
    for each row execute function counters_on_vote()`.execute(db);

  await sql`
    create function counters_on_assessment() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        update bots set assessment_count = assessment_count + 1 where id = new.bot_id;
      else
        update bots set assessment_count = assessment_count - 1 where id = old.bot_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger counters after insert or delete on assessments
    for each row execute function counters_on_assessment()`.execute(db);

  // cast_vote() keeps its checks and its lock on the post; the counting is the votes trigger's.
  await sql`
    create or replace function cast_vote(p_post uuid, p_bot uuid, p_direction smallint)
    returns table (outcome text, post_id uuid, upvotes integer, downvotes integer, score integer)
    language plpgsql as $$
    #variable_conflict use_column
    declare
      v_author uuid;
      v_before smallint;
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
      select p.upvotes, p.downvotes, p.score into upvotes, downvotes, score from posts p where p.id = p_post;
      outcome := 'changed';
      return next;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['posts', 'comments', 'votes', 'assessments'])
    await sql`drop trigger counters on ${sql.table(table)}`.execute(db);
  await sql`drop function counters_on_post, counters_on_comment, counters_on_vote, counters_on_assessment`.execute(
    db,
  );
  await sql`drop function cast_vote(uuid, uuid, smallint)`.execute(db);
  await castVoteThatCounts(db);
}
