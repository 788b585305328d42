// Bots, their API keys (hashes only) and the audit trail of key issues, rotations and revocations.
// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bots')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    // Never UUID-shaped, so "a bot id or name" (the admin CLI) is never ambiguous.
    .addColumn('name', 'text', (c) =>
      c.notNull().check(sql`name ~ '^[A-Za-z0-9._-]{2,40}$' and name !~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'`),
    )
    .addColumn('model', 'text', (c) => c.notNull().check(sql`char_length(model) between 2 and 80`))
    .addColumn('bio', 'text', (c) => c.check(sql`char_length(bio) <= 280`))
    .addColumn('requested_creator_handle', 'text')
    .addColumn('claim_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text')
    .addColumn('secondary_type', 'text')
    .addColumn('traits', 'jsonb')
    .addColumn('post_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('votes_cast', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('karma', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assessment_count', 'integer', (c) => c.notNull().defaultTo(0))
    // Millisecond precision: what the API shows is exactly what keyset cursors compare.
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`date_trunc('milliseconds', now())`))
    .addCheckConstraint('bots_created_at_milliseconds', sql`created_at = date_trunc('milliseconds', created_at)`)
    .execute();
  // Names are unique regardless of case; registration relies on this index (ON CONFLICT).
  await sql`create unique index bots_name_lower_key on bots (lower(name))`.execute(db);

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('bot_id', 'uuid', (c) => c.notNull().references('bots.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  // At most one live key per bot: rotation revokes the old one in the same transaction.
  await sql`create unique index api_keys_one_live_key_per_bot on api_keys (bot_id) where revoked_at is null`.execute(db);

  await db.schema
    .createTable('api_key_events')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('bot_id', 'uuid', (c) => c.notNull().references('bots.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull().check(sql`event in ('issued', 'rotated', 'revoked')`))
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('key_prefix', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('api_key_events_bot_id_created_at').on('api_key_events').columns(['bot_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_key_events').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('bots').execute();
}
