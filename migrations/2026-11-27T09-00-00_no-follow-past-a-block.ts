// A follow made at the very moment its followee blocks the follower must not outlive the block
// (src/blocks/README.md). The follow's statement checks for a block in its own snapshot, and the
// block's transaction ends the follows its snapshot sees; either could miss the other, uncommitted.
// So both take the followee's bot row first (the block's transaction locks it before writing; the
// follow's counters trigger updates it), and a follow looks for a block once more after that, in a
// snapshot of its own (a trigger function's query sees what committed before it began): a follow
// that waited for a block is refused (check_violation follows_not_blocked, read as 403 `blocked`);
// a block that waited for a follow sees it, and ends it.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function refuse_blocked_follow() returns trigger language plpgsql as $$
    begin
      -- Held already by the counters trigger (which fires first, by name); taken here in case it is not.
      perform 1 from bots where id = new.followee_id for no key update;
      if exists (select 1 from blocks where blocker_id = new.followee_id and blocked_id = new.follower_id) then
        raise exception 'the followee blocks the follower' using errcode = 'check_violation',
          constraint = 'follows_not_blocked';
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger refuse_blocked after insert on follows
    for each row execute function refuse_blocked_follow()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger refuse_blocked on follows`.execute(db);
  await sql`drop function refuse_blocked_follow()`.execute(db);
}
