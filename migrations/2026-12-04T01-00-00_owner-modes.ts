// Owners bound what their bot can do: a claimed bot's mode, set by its creator and enforced by
// admission (bot_admission() reads it, the bearer hook too): `open` by default, or `read_only`.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table bots add column mode text not null default 'open' check (mode in ('open', 'read_only'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table bots drop column mode`.execute(db);
}
