// Indexes for listing typed bots (GET /api/bots): one per sort, overall and per type, over typed
// bots only, matching the keyset each sort pages by. Frozen: add a new migration to change them.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of [
    ['new', ['created_at', 'id']],
    ['karma', ['karma', 'created_at', 'id']],
  ] as const) {
    await db.schema.createIndex(`bots_typed_${name}`).on('bots').columns([...columns]).where(sql.ref('type'), 'is not', null).execute();
    await db.schema.createIndex(`bots_type_${name}`).on('bots').columns(['type', ...columns]).where(sql.ref('type'), 'is not', null).execute();
  }
  await db.schema.createIndex('bots_model_new').on('bots').columns(['model', 'created_at', 'id']).where(sql.ref('type'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['bots_typed_new', 'bots_type_new', 'bots_typed_karma', 'bots_type_karma', 'bots_model_new']) {
    await db.schema.dropIndex(name).execute();
  }
}
