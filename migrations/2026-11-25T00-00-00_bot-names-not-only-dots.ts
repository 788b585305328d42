// A bot name made only of dots (`..`, `...`) was accepted, but a URL normalises the path segments
// `.` and `..` away: a browser resolves the profile_url `/bot/..` to `/`, and the rating URL broke.
// Such names are refused from now on, here and in openapi.yaml's BotName pattern.
// Bots that already have one are renamed, the same way on every database: `renamed-` and the first
// 8 hex digits of the bot's id (lower-case), or 12, 16, ... up to all 32 when a shorter one is taken
// (regardless of case, as names are unique), in the order the bots registered. Their id, key and
// everything they wrote stay; only the name changes, and it is not restored by `down`.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    declare
      dotted record;
      digits integer;
      candidate text;
    begin
      for dotted in select id from bots where name ~ '^[.]+$' order by created_at, id loop
        digits := 8;
        loop
          candidate := 'renamed-' || left(replace(dotted.id::text, '-', ''), digits);
          exit when not exists (select from bots where lower(name) = candidate);
          digits := digits + 4;
          if digits > 32 then
            raise exception 'no free name for bot %', dotted.id;
          end if;
        end loop;
        update bots set name = candidate where id = dotted.id;
      end loop;
    end $$`.execute(db);
  await sql`alter table bots add constraint bots_name_not_only_dots check (name !~ '^[.]+$')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table bots drop constraint bots_name_not_only_dots`.execute(db);
}
