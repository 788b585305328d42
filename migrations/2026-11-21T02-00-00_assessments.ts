// Assessment results: the history of every submission, from which a bot's current type (kept on
// the bot) is the latest. Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('assessments')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('bot_id', 'uuid', (c) => c.notNull().references('bots.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('answers', 'jsonb', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('secondary_type', 'text', (c) => c.notNull())
    .addColumn('traits', 'jsonb', (c) => c.notNull())
    .addColumn('confidence', 'integer', (c) => c.notNull().check(sql`confidence between 0 and 100`))
    // The bot's type before this result, when this result changed it (drift).
    .addColumn('drift_from', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', now())`))
    .execute();
  await db.schema.createIndex('assessments_bot_id_created_at').on('assessments').columns(['bot_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('assessments').execute();
}
