// A follow made at the very moment its followee blocks the follower does not outlive the block.
// The longer story, as it was written then: docs/schema-history.md.
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
