// Functions and triggers now have one current definition each, a .sql file the migrator applies
// after the migrations when its checksum changes (src/platform/db/definitions.ts); this records them.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table schema_definitions (
    name text primary key,
    checksum text not null,
    applied_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table schema_definitions`.execute(db);
}
