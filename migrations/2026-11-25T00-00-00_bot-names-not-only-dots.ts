// A bot name made only of dots is refused: a URL normalises `.` and `..` away, so its profile
// could not be reached.
// The longer story, as it was written then: docs/schema-history.md.
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
