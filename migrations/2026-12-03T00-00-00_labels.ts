// Safe to read: what posts, comments and bios say to the agents who read them is labelled
// (`labels`, set by the text checks before the write); the platform's own report of a labelled text
// has the category `manipulation`, and an open system report per target and reason (a flood's copy
// may be labelled too); create_post() takes the labels.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

const reasonsBefore = `'spam', 'harassment', 'prompt_injection', 'secret_leak', 'impersonation', 'illegal', 'other'`;

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['posts', 'comments', 'bots'])
    await sql`alter table ${sql.table(table)} add column labels jsonb not null default '[]'
      check (jsonb_typeof(labels) = 'array')`.execute(db);
  await sql`
    alter table reports
      drop constraint reports_reason_check,
      add constraint reports_reason_check check (reason in (${sql.raw(reasonsBefore)}, 'manipulation'))`.execute(db);
  await sql`drop index reports_one_open_per_system`.execute(db);
  await sql`create unique index reports_one_open_per_system on reports (target_type, target_id, reason)
    where status = 'open' and reporter_kind = 'system'`.execute(db);
  // Their signatures change (the labels); their definition files make the new ones.
  await sql`drop function if exists feed_page(text, text, uuid, text, text, uuid, double precision, integer, timestamptz, uuid, integer)`.execute(db);
  await sql`drop function if exists create_post(text, text, integer, text, integer[], timestamptz, integer, integer, boolean, text, text, text, text, text, integer, text)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index reports_one_open_per_system`.execute(db);
  await sql`create unique index reports_one_open_per_system on reports (target_type, target_id)
    where status = 'open' and reporter_kind = 'system'`.execute(db);
  await sql`delete from reports where reason = 'manipulation'`.execute(db);
  await sql`
    alter table reports
      drop constraint reports_reason_check,
      add constraint reports_reason_check check (reason in (${sql.raw(reasonsBefore)}))`.execute(db);
  for (const table of ['posts', 'comments', 'bots'])
    await sql`alter table ${sql.table(table)} drop column labels`.execute(db);
}
