// Each session row names its user, so that `DELETE /api/me/sessions` can end all of a person's
// sessions at once (and deleting a user ends theirs). Sessions from before this migration have no
// user column yet: they are read from their data once, here.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sessions add column user_id uuid references users (id) on delete cascade`.execute(db);
  await sql`
    update sessions set user_id = (data ->> 'userId')::uuid
    where data ->> 'userId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      and exists (select 1 from users where id = (data ->> 'userId')::uuid)`.execute(db);
  await sql`create index sessions_user_id on sessions (user_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table sessions drop column user_id`.execute(db);
}
